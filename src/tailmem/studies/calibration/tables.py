"""The calibration table: the best protocol, the residual per cell beside this scale's own protocol, the held-out
family apart, and which cells (alone, or in pairs) no searched protocol brings within the tolerance.

Every function takes a `calibration.search.SearchResult` and returns a pandas frame.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tailmem.studies.calibration import targets
from tailmem.studies.calibration.protocol import Protocol
from tailmem.studies.calibration.targets import CELL_KEYS, METRICS

if TYPE_CHECKING:  # a table reads the search's result; it never runs the search (pyproject: the layers)
    from tailmem.studies.calibration.search import SearchResult

# The CSV's columns (docs/calibration.md): one row per paper cell.
COLUMNS = [
    "table",
    "metric",
    "family",
    "n",
    "role",
    "paper",
    "default",
    "default_residual",
    "best",
    "best_residual",
    "within_tolerance",
    "best_alone",
    "best_alone_residual",
    "best_alone_protocol",
    "reachable_alone",
]
PROTOCOL_FIELDS = list(Protocol.__dataclass_fields__)


def _cells_of(result: SearchResult, key: str) -> pd.DataFrame:
    return result.residuals[result.residuals.protocol == key].set_index(CELL_KEYS)


def best_alone(result: SearchResult) -> pd.DataFrame:
    """Per cell, the searched protocol that comes closest to the paper on that cell alone (CELL_KEYS, value,
    residual, protocol)."""
    res = result.residuals.assign(abs_residual=result.residuals.residual.abs().fillna(np.inf))
    idx = res.groupby(CELL_KEYS, sort=False).abs_residual.idxmin()
    return res.loc[idx, [*CELL_KEYS, "value", "residual", "protocol"]].reset_index(drop=True)


def cells(result: SearchResult, default_key: str, holdout: str, tolerance: float) -> pd.DataFrame:
    """The table's CSV: per paper cell, ours under this scale's protocol and under the best one, and the closest
    any searched protocol comes on that cell alone."""
    best = _cells_of(result, result.best.protocol)
    default = _cells_of(result, default_key)
    alone = best_alone(result).set_index(CELL_KEYS)
    out = best[["paper"]].copy()
    out["role"] = ["held out" if f == holdout else "fitted" for f in out.index.get_level_values("family")]
    out["default"], out["default_residual"] = default.value, default.residual
    out["best"], out["best_residual"] = best.value, best.residual
    out["within_tolerance"] = out.best_residual.abs() <= tolerance
    out["best_alone"], out["best_alone_residual"] = alone.value, alone.residual
    out["best_alone_protocol"] = alone.protocol
    out["reachable_alone"] = out.best_alone_residual.abs() <= tolerance
    return out.reset_index()[COLUMNS]


def summary(result: SearchResult, default_key: str) -> pd.DataFrame:
    """Three protocols side by side: this scale's own, the best on the fitted families, and the best on the held-out
    family alone (how well that family could have been fitted, against how well the chosen protocol does on it)."""
    holdout_best = result.protocols.sort_values(["holdout_loss", "protocol"], kind="stable").iloc[0].protocol
    p = result.protocols.set_index("protocol", drop=False)
    picks = (
        ("this scale's protocol", default_key),
        ("best on the fitted families", result.best.protocol),
        ("best on the held-out family alone", holdout_best),
    )
    cols = [
        "fit_loss",
        "fit_cells_within",
        "fit_cells",
        "fit_max_abs_residual",
        "fit_relations_broken",
        "fit_reached",
        "holdout_loss",
        "holdout_cells_within",
        "holdout_cells",
        "holdout_max_abs_residual",
        "holdout_relations_broken",
    ]
    rows = [
        {
            "which": name,
            **{f: p.loc[key, f] for f in PROTOCOL_FIELDS + cols},
            "fit_rank": int(np.flatnonzero(result.protocols.protocol.to_numpy() == key)[0]) + 1,
        }
        for name, key in picks
    ]
    return pd.DataFrame(rows)


def relations(result: SearchResult, default_key: str, holdout: str) -> pd.DataFrame:
    """Table 8's relations per family: paper 1's own difference, ours under this scale's protocol and the best one,
    the share of searched protocols under which each holds and the largest difference any of them gives."""
    rel = result.relations
    by = rel.groupby(["family", "relation"], sort=False)
    paper_rel = targets.relations(targets.table8(list(dict.fromkeys(rel.family))), margin=np.inf)
    pick = {
        name: rel[rel.protocol == key].set_index(["family", "relation"])
        for name, key in (("default", default_key), ("best", result.best.protocol))
    }
    out = pd.DataFrame(
        {
            "paper_diff": paper_rel.set_index(["family", "relation"])["diff"],
            "default_diff": pick["default"]["diff"],
            "default_holds": pick["default"].holds,
            "best_diff": pick["best"]["diff"],
            "best_holds": pick["best"].holds,
            "holds_share": by.holds.mean(),
            "max_diff": by["diff"].max(),
        }
    ).reset_index()
    out.insert(2, "role", np.where(out.family == holdout, "held out", "fitted"))
    return out


def joint_misses(result: SearchResult, tolerance: float) -> pd.DataFrame:
    """Pairs of Table 7 metrics at one family and size that the searched space reaches one at a time but never both
    at once: per pair, each metric's closest residual alone and the least max(|r_a|, |r_b|) of any one protocol."""
    res = result.residuals[result.residuals.table == "Table 7"]
    wide = res.pivot_table(index=["protocol", "family", "n"], columns="metric", values="residual").abs()
    rows = []
    for (fam, n), sub in wide.groupby(level=["family", "n"], sort=False):
        for a, b in itertools.combinations(METRICS, 2):
            alone_a, alone_b = sub[a].min(), sub[b].min()
            joint = sub[[a, b]].max(axis=1)
            if alone_a <= tolerance and alone_b <= tolerance and joint.min() > tolerance:
                rows.append(
                    {
                        "family": fam,
                        "n": int(n),
                        "pair": f"{a} + {b}",
                        "alone_a": alone_a,
                        "alone_b": alone_b,
                        "joint": joint.min(),
                        "joint_protocol": joint.idxmin()[0],
                    }
                )
    return pd.DataFrame(rows, columns=["family", "n", "pair", "alone_a", "alone_b", "joint", "joint_protocol"])


def top_spread(result: SearchResult, tolerance: float) -> pd.DataFrame:
    """What a top-10% share and a sigma_top10 (in units of the mean count) imply together: the top items' mean count
    is share / 10% mean counts, so sigma_top10 / (share / 10%) is the coefficient of variation among the top items
    themselves. Per family and size: paper 1's, the best protocol's, and the least of any searched protocol (sigma in
    units of the mean) whose top-10% share is within the tolerance of the paper's, with how many such there are."""
    res = result.residuals[
        (result.residuals.table == "Table 7") & result.residuals.metric.isin(["top10_pct", "sigma_top10"])
    ]
    mean_unit = set(result.protocols.protocol[result.protocols.sigma_unit == "mean"])
    res = res[res.protocol.isin(mean_unit)]
    wide = res.pivot_table(index=["family", "n", "protocol"], columns="metric", values=["value", "paper", "residual"])
    cv = wide["value"].sigma_top10 / (wide["value"].top10_pct / 10.0)
    share_ok = wide["residual"].top10_pct.abs() <= tolerance
    rows = []
    for (fam, n), sub in cv.groupby(level=["family", "n"], sort=False):
        paper = wide["paper"].loc[(fam, n)].iloc[0]
        ok = sub[share_ok.loc[sub.index]]
        best = result.best.protocol
        rows.append(
            {
                "family": fam,
                "n": int(n),
                "top_cv_paper": paper.sigma_top10 / (paper.top10_pct / 10.0),
                "top_cv_best": sub.get((fam, n, best), np.nan),
                "top_cv_least_at_paper_share": ok.min() if len(ok) else np.nan,
                "protocols_at_paper_share": int(len(ok)),
            }
        )
    return pd.DataFrame(rows)
