"""A planted calibration: fake walk measurements whose cells equal paper 1's for one walk and drift from them for
the others, so the search's answer is known in advance."""

from __future__ import annotations

from tailmem.report import paper1_values as paper
from tailmem.settings.calibration import ITEMS, SIGMA_UNITS
from tailmem.studies.calibration.protocol import Walk
from tailmem.studies.calibration.search import Fit
from tailmem.studies.calibration.targets import cells

FAMILIES = ("uniform", "scale_free", "modular")
SIZES = (100, 500, 1000)
TABLE8_SIZE = 100
PLANTED = Walk(20, 50, "continue", 3)


def fit(holdout: str = "modular", tolerance: float = 0.1) -> Fit:
    return Fit(cells(FAMILIES, SIZES), tuple(f for f in FAMILIES if f != holdout), holdout, tolerance, 1.0, 0.05)


def records(walk: Walk, off=lambda walk, family: 0.0) -> list[dict]:
    """Records as `measure.measure_walk` gives them: the paper's values times (1 + off(walk, family)) under every
    item basis and sigma unit (0 at the planted walk by default), Table 8's designs ordered as the paper claims."""
    out = []
    for fam in FAMILIES:
        x = 1.0 + off(walk, fam)
        for n in SIZES:
            g = paper.TABLE7_GINI[fam][n] * x
            metrics = {
                **{f"gini_{i}": g for i in ITEMS},
                **{f"top10_pct_{i}": paper.TABLE7_TOP10[fam][n] * x for i in ITEMS},
                **{f"sigma_top10_{i}_{u}": paper.TABLE2_SIGMA[fam][n] * x for i in ITEMS for u in SIGMA_UNITS},
            }
            out.append({"design": "recency", "family": fam, "n": n, "seed": 0, **metrics})
            if n == TABLE8_SIZE:
                for design, gini in (("none", g - 0.2), ("state_mate_uniform", g), ("state_aware_frequency", g + 0.1)):
                    out.append(
                        {"design": design, "family": fam, "n": n, "seed": 0, **{f"gini_{i}": gini for i in ITEMS}}
                    )
    return out


def distance(walk: Walk, family: str) -> float:
    """How far a walk's numbers drift from the paper's: 0 at the planted walk, growing with each field's gap."""
    return 0.05 * (
        abs(walk.episodes - PLANTED.episodes) / 10
        + abs(walk.steps - PLANTED.steps) / 50
        + (walk.start != PLANTED.start)
        + abs(walk.k - PLANTED.k)
    )
