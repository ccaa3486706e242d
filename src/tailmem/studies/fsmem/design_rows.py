"""Stage `fsmem_design_rows`: the filesystem-memory study's row of the design check, before any model call.

The study's paired claim (LoCoMo F1, an arm against the closed book, per question) is planned from its stated
effect (`tailmem.power.stated`) over the LoCoMo questions the answer stages ask: counted from the data when it is
there (the kept sessions may hold the evidence of fewer questions than `fsmem.max_questions`), else the cap. The row
reads the `fsmem`, `power` and `stats` groups only, so an fsmem setting reruns this study's row, not the controller
study's design check; `fsmem_claims` prints the same row's power beside its verdicts.
"""

from __future__ import annotations

from tailmem import paths
from tailmem.fsmem.questions import asked
from tailmem.power import stated
from tailmem.records.design import DesignRows
from tailmem.roles import JUDGE
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.fsmem.claim_specs import DESIGN_CLAIM


def row(cfg, min_units: int, alpha: float, questions: int | None = None) -> dict:
    """The study's design-check row; `questions`: the LoCoMo questions the answer stages ask
    (`tailmem.fsmem.questions.asked`; None: `fsmem.max_questions`, None again for every question)."""
    units = questions if questions is not None else cfg.fsmem.max_questions
    unplayed = () if cfg.fsmem.judge else (JUDGE,)  # the F1 row needs no judge: a slice without one pays none
    return stated.claim_row(cfg.power, "fsmem", DESIGN_CLAIM, "questions", units, min_units, alpha, unplayed=unplayed)


@typed_stage("fsmem_design_rows")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    mine = row(cfg, st.min_units, st.alpha, asked(cfg.fsmem))
    DesignRows("fsmem", [mine]).write(paths.DESIGN_ROWS.format(results=cfg.results_dir, study="fsmem"))
