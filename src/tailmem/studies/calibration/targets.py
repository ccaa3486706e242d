"""The paper's numbers the calibration fits, as cells: Table 7's three metrics per family and size, Table 2's
sigma_top10 slope per family, and the order of Table 8's retrieval designs (paper 1, report/paper1_values.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tailmem.report import paper1_values as paper

# Table 7's metrics and where each paper value comes from (its sigma_top10 is Table 2's)
METRICS = {"gini": paper.TABLE7_GINI, "top10_pct": paper.TABLE7_TOP10, "sigma_top10": paper.TABLE2_SIGMA}
SLOPE = "sigma_slope"  # Table 2's log-log slope of sigma_top10 over the sizes
CELL_KEYS = ["table", "metric", "family", "n"]  # n is 0 for a slope (a cell over all sizes)

# Paper 1's claim about Table 8 (the same pairs `claims_random_walk` tests): none < recency ~ state-mate <
# state-aware frequency, "~" meaning within stats.margins.gini. (lower, higher, kind)
ORDER = (
    ("none", "recency", "<"),
    ("none", "state_mate_uniform", "<"),
    ("recency", "state_aware_frequency", "<"),
    ("state_mate_uniform", "state_aware_frequency", "<"),
    ("recency", "state_mate_uniform", "~"),
)
TABLE8_DESIGNS = ("none", "recency", "state_mate_uniform", "state_aware_frequency")


def cells(families, sizes) -> pd.DataFrame:
    """One row per fitted number: table, metric, family, n (0 for a slope) and the paper's value."""
    rows = []
    for fam in families:
        for metric, values in METRICS.items():
            rows += [
                {"table": "Table 7", "metric": metric, "family": fam, "n": int(n), "paper": values[fam][n]}
                for n in sizes
            ]
        rows.append(
            {"table": "Table 2", "metric": SLOPE, "family": fam, "n": 0, "paper": paper.TABLE2_SIGMA[fam]["slope"]}
        )
    return pd.DataFrame(rows, columns=[*CELL_KEYS, "paper"])


def table8(families) -> pd.DataFrame:
    """Paper 1's Table 8 Gini per design and family (single seed in the paper)."""
    return pd.DataFrame(
        [{"design": d, "family": f, "gini": paper.TABLE8_GINI[d][f]} for d in TABLE8_DESIGNS for f in families]
    )


def relations(ginis: pd.DataFrame, margin: float) -> pd.DataFrame:
    """Each family's ORDER relations read off a frame of Table 8 Ginis (design, family, gini): the difference
    higher - lower and whether the relation holds (`<`: the difference is positive; `~`: within `margin`)."""
    gini = {(d, f): g for d, f, g in zip(ginis.design, ginis.family, ginis.gini)}
    rows = []
    for fam in dict.fromkeys(ginis.family):
        for lo, hi, kind in ORDER:
            diff = float(gini.get((hi, fam), np.nan) - gini.get((lo, fam), np.nan))
            holds = (diff > 0 if kind == "<" else abs(diff) <= margin) and np.isfinite(diff)
            rows.append((fam, f"{lo} {kind} {hi}", diff, bool(holds)))
    return pd.DataFrame(rows, columns=["family", "relation", "diff", "holds"])
