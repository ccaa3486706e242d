"""How a metric grows with graph size: slope and R^2 of a least-squares line in log-log space (Table 2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScalingFit:
    """log(value) = intercept + slope * log(size); r2 is the R^2 of that line in log space."""

    slope: float
    intercept: float
    r2: float
    n_points: int


def scaling_fit(sizes, values) -> ScalingFit:
    """Fit log(values) against log(sizes); needs >= 2 distinct positive sizes and positive values."""
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(values, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"sizes and values must be 1-D of equal length, got {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("log-log scaling needs positive sizes and values")
    if np.unique(x).size < 2:
        raise ValueError("log-log scaling needs at least two distinct sizes")
    lx, ly = np.log(x), np.log(y)
    slope, intercept = np.polyfit(lx, ly, 1)
    resid = ly - (intercept + slope * lx)
    ss_tot = float(np.sum((ly - ly.mean()) ** 2))
    ss_res = float(np.sum(resid**2))
    # A constant metric is fitted exactly by a flat line: call that R^2 = 1 rather than 0/0.
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return ScalingFit(slope=float(slope), intercept=float(intercept), r2=float(r2), n_points=int(x.size))
