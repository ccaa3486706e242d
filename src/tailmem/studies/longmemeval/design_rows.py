"""Stage `longmemeval_design_rows`: LongMemEval's row of the design check, before any model call.

The study's paired claim (accuracy, Graph Memory against CTMC at the primary ratio, per question) is planned from
its stated effect (`tailmem.control.stated`) over the questions the scale asks. The row reads the `longmemeval`,
`power` and `stats` groups only; `longmemeval_report` prints the same row's power beside its verdicts.
"""

from __future__ import annotations

from tailmem import paths
from tailmem.control import stated
from tailmem.records.design import DesignRows
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.longmemeval.claim_specs import DESIGN_CLAIM

QUESTION_TYPES = 6  # `longmemeval.max_per_type` caps each of the benchmark's six question types


def questions(lme) -> int | None:
    """The questions the scale asks: `max_per_type` of each type, at most `max_questions` (None: every one)."""
    n = None if lme.max_per_type is None else int(lme.max_per_type) * QUESTION_TYPES
    if lme.max_questions is not None:
        n = int(lme.max_questions) if n is None else min(n, int(lme.max_questions))
    return n


def row(cfg, min_units: int, alpha: float) -> dict:
    """The study's design-check row."""
    return stated.claim_row(
        cfg.power, "longmemeval", DESIGN_CLAIM, "questions", questions(cfg.longmemeval), min_units, alpha
    )


@typed_stage("longmemeval_design_rows")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    mine = row(cfg, st.min_units, st.alpha)
    DesignRows("longmemeval", [mine]).write(paths.DESIGN_ROWS.format(results=cfg.results_dir, study="longmemeval"))
