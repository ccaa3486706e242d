"""What a protocol's walks give: the random-walk kernel on each world, read as paper 1's concentration metrics.

`measure_walk` rolls one `Walk` out on every world (recency at every size for Tables 2 and 7; every Table 8 design at
`table8_size`) with the pipeline's own kernel and uniforms (rollout.randomness: the same seed gives the same walk as
the rollout stage), and records, per run, the metrics under both item bases and both sigma units. `protocol_cells`
then reads one protocol's numbers off those records: means over seeds, and Table 2's slope fitted to the means the
way paper 1 fits it (sigma_top10 against ln(size): `audit.scaling.semilog_fit`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tailmem.audit.concentration import gini, sigma_top, top_share
from tailmem.audit.scaling import semilog_fit
from tailmem.rollout.randomness import draw_uniforms, world_seed
from tailmem.rollout.run import kernel_rollout
from tailmem.settings.calibration import ITEMS, SIGMA_UNITS
from tailmem.settings.rollout import SAMPLING_DESIGNS
from tailmem.studies.calibration.protocol import Protocol, Walk
from tailmem.studies.calibration.targets import CELL_KEYS, METRICS, SLOPE, TABLE8_DESIGNS

TOP_FRACTION = 0.10  # paper 1's top 10%


@dataclass(frozen=True, eq=False)
class Graph:
    """A world's CSR arrays (all a random walk needs), read-only."""

    family: str
    n: int
    seed: int
    indptr: np.ndarray
    targets: np.ndarray


def count_metrics(counts: np.ndarray) -> dict:
    """Gini, top-10% share (percent) and sigma_top10 (both units) of one count vector, over every state and over
    the stored items only (the states visited at least once: every accessed item has been visited)."""
    out = {}
    for items in ITEMS:
        x = counts if items == "all" else counts[counts > 0]
        out[f"gini_{items}"] = gini(x)
        out[f"top10_pct_{items}"] = 100.0 * top_share(x, TOP_FRACTION)
        for unit in SIGMA_UNITS:
            out[f"sigma_top10_{items}_{unit}"] = sigma_top(x, TOP_FRACTION, unit)
    return out


def measure_walk(walk: Walk, graphs: list[Graph], table8_size: int) -> list[dict]:
    """One record per (design, world): its keys and `count_metrics`."""
    records = []
    for g in graphs:
        designs = TABLE8_DESIGNS if g.n == table8_size else ("recency",)
        for design in designs:
            draws = walk.k if design in SAMPLING_DESIGNS else 0
            uniforms = draw_uniforms(world_seed(g.seed, g.family, g.n), walk.episodes, walk.steps, draws)
            trace = kernel_rollout(g.indptr, g.targets, design, walk.k, uniforms, progress=False, start=walk.start)
            records.append(
                {"design": design, "family": g.family, "n": g.n, "seed": g.seed, **count_metrics(trace.counts)}
            )
    return records


def _column(metric: str, protocol: Protocol) -> str:
    if metric == "sigma_top10":
        return f"sigma_top10_{protocol.items}_{protocol.sigma_unit}"
    return f"{metric}_{protocol.items}"


@dataclass(frozen=True, eq=False)
class WalkSummary:
    """A walk's records averaged over seeds, once for all the protocols that share the walk."""

    sizes: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]  # family -> (sizes ascending, column -> means)
    table8: pd.DataFrame  # the Table 8 size: every Gini column, mean over seeds, by design and family


def summarize(records: pd.DataFrame) -> WalkSummary:
    metrics = [c for c in records.columns if c not in ("design", "family", "n", "seed")]
    means = records[records.design == "recency"].groupby(["family", "n"], sort=True)[metrics].mean()
    sizes = {}
    for fam in dict.fromkeys(records.family):
        sub = means.loc[fam]
        sizes[fam] = (sub.index.to_numpy(int), {c: sub[c].to_numpy(float) for c in metrics})
    other = records.loc[records.design != "recency", "n"]  # measure_walk runs the other designs at one size only
    t8 = records[records.n == other.iloc[0]] if len(other) else records.iloc[0:0]
    ginis = [c for c in metrics if c.startswith("gini_")]
    return WalkSummary(sizes, t8.groupby(["design", "family"], sort=False)[ginis].mean().reset_index())


def protocol_cells(summary: WalkSummary, protocol: Protocol) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(cells, table8): the protocol's Table 7 metrics per family and size and Table 2 slope per family, as
    CELL_KEYS + `value`; and its Table 8 Gini per design and family at the Table 8 size (means over seeds)."""
    rows = []
    for fam, (ns, columns) in summary.sizes.items():
        for metric in METRICS:
            rows += [("Table 7", metric, fam, int(n), float(v)) for n, v in zip(ns, columns[_column(metric, protocol)])]
        sigma = columns[_column("sigma_top10", protocol)]
        ok = np.isfinite(sigma).all() and len(sigma) >= 2
        rows.append(("Table 2", SLOPE, fam, 0, semilog_fit(ns, sigma).slope if ok else float("nan")))
    t8 = summary.table8
    table8 = pd.DataFrame({"design": t8.design, "family": t8.family, "gini": t8[f"gini_{protocol.items}"]})
    return pd.DataFrame(rows, columns=[*CELL_KEYS, "value"]), table8
