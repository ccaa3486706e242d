"""Stage `alfworld_design_rows`: ALFWorld's row of the design check, before any model call.

The study's paired claim (games won, the episode log against no store, per game) is planned from its stated effect
(`tailmem.power.stated`) over the games each subset's chain plays, or says the scale plays none. The row reads
the `alfworld`, `power` and `stats` groups only; `alfworld_report` prints the same row's power beside its verdicts.
"""

from __future__ import annotations

from tailmem import paths
from tailmem.power import stated
from tailmem.records.design import DesignRows
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.alfworld.claim_specs import DESIGN_CLAIM


def games(alf) -> int | None:
    """The games each ALFWorld subset's chain plays, at most (its claims table is per subset): the `smoke`
    subset plays its listed `smoke_games`, a real split its first `max_games` (None: the whole split)."""
    counts = [len(alf.smoke_games) if subset == "smoke" else alf.max_games for subset in alf.subsets]
    counts = [c if alf.max_games is None or c is None else min(c, alf.max_games) for c in counts]
    known = [c for c in counts if c is not None]
    return min(known) if known else None


def row(cfg, min_units: int, alpha: float) -> dict:
    """The study's design-check row: its games, or why this scale plays none."""
    if cfg.alfworld.subsets:
        return stated.claim_row(cfg.power, "alfworld", DESIGN_CLAIM, "games", games(cfg.alfworld), min_units, alpha)
    why = (
        f"not run at this scale (alfworld.subsets is empty): a game claim needs at least {min_units} games; "
        "scale paper_model plays them (benchmarks/plan_model_slice.py prints its cost)"
    )
    return stated.unplayed_row(cfg.power, "alfworld", DESIGN_CLAIM, "games", why, min_units, alpha)


@typed_stage("alfworld_design_rows")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    mine = row(cfg, st.min_units, st.alpha)
    DesignRows("alfworld", [mine]).write(paths.DESIGN_ROWS.format(results=cfg.results_dir, study="alfworld"))
