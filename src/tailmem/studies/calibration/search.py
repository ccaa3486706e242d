"""The search: measure every protocol's walk once (cached on disk, one JSON per walk), score each protocol on the
fitted families and, apart, on the held-out one, and rank them by the fitted loss.

The held-out family's cells and relations never enter the ranking: they are scored only to report how the chosen
protocol does on a family it was not tuned to (and how well that family alone could have been fitted).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from tailmem.records.calibration import CalibrationWalk
from tailmem.studies.calibration.loss import residuals, score
from tailmem.studies.calibration.measure import WalkSummary, protocol_cells, summarize
from tailmem.studies.calibration.protocol import Protocol, Walk
from tailmem.studies.calibration.targets import relations


class WalkCache:
    """Per-walk measurement records as JSON files in `folder` (None: no cache), so a killed search resumes where it
    stopped. The caller names the folder after everything the records depend on (worlds, seeds, code)."""

    def __init__(self, folder: Path | None):
        self.folder = None if folder is None else Path(folder)

    def _path(self, walk: Walk) -> Path:
        return self.folder / f"{walk.key}.json"

    def get(self, walk: Walk) -> list[dict] | None:
        if self.folder is None or not self._path(walk).exists():
            return None
        return CalibrationWalk.read(self._path(walk)).records

    def put(self, walk: Walk, records: list[dict]) -> None:
        if self.folder is not None:
            CalibrationWalk(walk=vars(walk), records=records).write(self._path(walk))


@dataclass(frozen=True)
class Fit:
    """What the search is scored against: the paper's cells, which families are fitted and held out, the rule."""

    paper: pd.DataFrame  # targets.cells over every family
    fitted: tuple[str, ...]
    holdout: str
    tolerance: float
    order_weight: float
    margin: float  # the `~` relation of Table 8 (stats.margins.gini)


@dataclass(frozen=True)
class SearchResult:
    """protocols: one row per protocol (its fields, `fit_*` and `holdout_*` scores), best fitted loss first;
    residuals / relations: every protocol's cells and Table 8 relations, keyed by `protocol`."""

    protocols: pd.DataFrame
    residuals: pd.DataFrame
    relations: pd.DataFrame

    @property
    def best(self) -> pd.Series:
        return self.protocols.iloc[0]


def evaluate(protocol: Protocol, summary: WalkSummary, fit: Fit) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """One protocol's score row, residual cells and Table 8 relations."""
    cells, table8 = protocol_cells(summary, protocol)
    res = residuals(cells, fit.paper)
    rel = (
        relations(table8, fit.margin) if len(table8) else pd.DataFrame(columns=["family", "relation", "diff", "holds"])
    )
    row = {
        "protocol": protocol.key,
        **protocol.to_dict(),
        **score(res, rel, fit.fitted, fit.tolerance, fit.order_weight).to_dict("fit"),
        **score(res, rel, (fit.holdout,), fit.tolerance, fit.order_weight).to_dict("holdout"),
    }
    return row, res.assign(protocol=protocol.key), rel.assign(protocol=protocol.key)


def run_search(
    protocols: Sequence[Protocol],
    measure: Callable[[Walk], list[dict]],
    fit: Fit,
    cache: WalkCache | None = None,
    progress: bool | None = None,
) -> SearchResult:
    """Score every protocol; `measure(walk)` gives a walk's records (`measure.measure_walk`), called once per walk
    not found in `cache`. `progress=None` shows a tqdm bar on a TTY only."""
    cache = cache or WalkCache(None)
    by_walk: dict[Walk, list[Protocol]] = {}
    for p in protocols:
        by_walk.setdefault(p.walk, []).append(p)
    rows, res, rel = [], [], []
    hide = None if progress is None else not progress
    for walk, group in tqdm(by_walk.items(), desc="calibration", unit="walk", disable=hide, leave=False):
        records = cache.get(walk)
        if records is None:
            records = measure(walk)
            cache.put(walk, records)
        summary = summarize(pd.DataFrame(records))
        for p in group:
            row, r, t = evaluate(p, summary, fit)
            rows.append(row)
            res.append(r)
            rel.append(t)
    table = pd.DataFrame(rows).sort_values(["fit_loss", "protocol"], kind="stable").reset_index(drop=True)
    return SearchResult(table, pd.concat(res, ignore_index=True), pd.concat(rel, ignore_index=True))
