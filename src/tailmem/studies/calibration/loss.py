"""How far a protocol's numbers are from paper 1's, as one loss.

loss = sum over the fitted cells of ((ours - paper) / |paper|)^2  +  order_weight x (Table 8 relations broken).

The cells are Table 7's Gini, top-10% share and sigma_top10 at each size and Table 2's sigma_top10 slope, for every
family but the held-out one; the relations are paper 1's order of the retrieval designs (targets.ORDER), per family.
A relative residual weighs a Gini of 0.5 and a share of 40% alike; with order_weight 1 a broken relation costs as
much as a cell missed by 100%. A cell our protocol gives no number for (a sigma_top10 of no accesses) makes the
loss infinite. A protocol *reaches* the paper when every fitted cell is within the tolerance
(|residual| <= tolerance) and no relation is broken.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tailmem.studies.calibration.targets import CELL_KEYS


def residuals(cells: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's cells with ours beside them: CELL_KEYS, `paper`, `value`, `residual` (relative, signed)."""
    ours = dict(zip(cells[CELL_KEYS].itertuples(index=False, name=None), cells.value))
    value = np.array([ours.get(key, np.nan) for key in paper[CELL_KEYS].itertuples(index=False, name=None)], float)
    return paper.assign(value=value, residual=(value - paper.paper.to_numpy(float)) / paper.paper.abs().to_numpy())


@dataclass(frozen=True)
class Score:
    """One protocol's fit over a set of families."""

    loss: float
    cells: int
    within: int  # cells with |residual| <= tolerance
    max_abs: float  # largest |residual| (inf when a cell has no number)
    broken: int  # Table 8 relations broken
    relations: int

    @property
    def reached(self) -> bool:
        return self.within == self.cells and self.broken == 0

    def to_dict(self, prefix: str) -> dict:
        return {
            f"{prefix}_loss": self.loss,
            f"{prefix}_cells_within": self.within,
            f"{prefix}_cells": self.cells,
            f"{prefix}_max_abs_residual": self.max_abs,
            f"{prefix}_relations_broken": self.broken,
            f"{prefix}_reached": self.reached,
        }


def score(res: pd.DataFrame, rel: pd.DataFrame, families, tolerance: float, order_weight: float) -> Score:
    """The loss and its parts over `families` (rows of `residuals` and `targets.relations`)."""
    r = res.loc[res.family.isin(families), "residual"].to_numpy(float)
    missing = ~np.isfinite(r)
    held = rel.loc[rel.family.isin(families), "holds"].to_numpy(bool)
    broken = int((~held).sum())
    loss = float("inf") if missing.any() else float(np.sum(r**2) + order_weight * broken)
    max_abs = float("inf") if missing.any() or not r.size else float(np.max(np.abs(r)))
    within = int(np.sum(np.abs(np.where(missing, np.inf, r)) <= tolerance))
    return Score(loss, int(r.size), within, max_abs, broken, int(held.size))
