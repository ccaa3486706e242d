"""Stage `longmemeval_design_rows`: LongMemEval's rows of the design check, before any model call.

The study's paired claims are planned from their stated effects (`tailmem.power.stated`) over the questions the
scale asks: accuracy, Graph Memory against CTMC at the primary ratio (`power.stated_effects.longmemeval`), and the
reader's response to its context, Graph Memory with against without the answer-bearing turns
(`power.stated_effects.longmemeval_context`) over the questions the stage checks (`questions.context_checked`,
counted from the data when it is there). The rows read the `longmemeval`, `power` and `stats` groups only;
`longmemeval_report` prints the same rows' power beside its verdicts.
"""

from __future__ import annotations

import logging

from tailmem import paths
from tailmem.errors import DataError
from tailmem.power import stated
from tailmem.records.design import DesignRows
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.longmemeval.claim_specs import CONTEXT_DESIGN_CLAIM, DESIGN_CLAIM
from tailmem.studies.longmemeval.questions import asked, context_checked

log = logging.getLogger(__name__)
QUESTION_TYPES = 6  # `longmemeval.max_per_type` caps each of the benchmark's six question types


def questions(lme) -> int | None:
    """The questions the scale asks: `max_per_type` of each type, at most `max_questions` (None: every one)."""
    n = None if lme.max_per_type is None else int(lme.max_per_type) * QUESTION_TYPES
    if lme.max_questions is not None:
        n = int(lme.max_questions) if n is None else min(n, int(lme.max_questions))
    return n


def checked(lme) -> int | None:
    """The questions the stage answers again without their evidence: counted from the data (abstention questions
    and those without answer-bearing turns are not checked), else `context_check` capped by `questions` (None:
    every question)."""
    try:
        return len(context_checked(asked(lme)[1], lme.context_check))
    except (OSError, DataError) as e:
        log.warning("LongMemEval's checked questions not counted from the data (%s); the config's caps count", e)
    cap, n = lme.context_check, questions(lme)
    return n if cap is None else (int(cap) if n is None else min(int(cap), n))


def row(cfg, min_units: int, alpha: float) -> dict:
    """The accuracy claim's design-check row."""
    return stated.claim_row(
        cfg.power, "longmemeval", DESIGN_CLAIM, "questions", questions(cfg.longmemeval), min_units, alpha
    )


def context_row(cfg, min_units: int, alpha: float) -> dict:
    """The context check's design-check row (not played where `longmemeval.context_check` is 0)."""
    lme = cfg.longmemeval
    if lme.context_check is not None and int(lme.context_check) == 0:
        why = "not run at this scale (longmemeval.context_check = 0)"
        return stated.unplayed_row(
            cfg.power, "longmemeval_context", CONTEXT_DESIGN_CLAIM, "questions", why, min_units, alpha
        )
    return stated.claim_row(
        cfg.power, "longmemeval_context", CONTEXT_DESIGN_CLAIM, "questions", checked(lme), min_units, alpha
    )


def rows(cfg, min_units: int, alpha: float) -> list[dict]:
    """The study's rows of the design check: accuracy, then the context check."""
    return [row(cfg, min_units, alpha), context_row(cfg, min_units, alpha)]


@typed_stage("longmemeval_design_rows")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    DesignRows("longmemeval", rows(cfg, st.min_units, st.alpha)).write(
        paths.DESIGN_ROWS.format(results=cfg.results_dir, study="longmemeval")
    )
