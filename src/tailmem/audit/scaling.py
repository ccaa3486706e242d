"""How a metric grows with graph size: slope and R^2 of a least-squares line in log-log space (Table 2), or of the
metric itself against log(size), the fit paper 1's Table 2 reports."""

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


def semilog_fit(sizes, values) -> ScalingFit:
    """Fit values against log(sizes): value = intercept + slope * ln(size), R^2 of that line.

    Paper 1's Table 2 slope and R^2 are this fit of sigma_top10, not the log-log one: its own sigma values at
    100 / 500 / 1,000 states give every family's slope and R^2 to the third decimal this way (uniform: 0.505 and
    0.967; log-log would give 0.967), tests/audit/test_scaling.py. Values may be zero or negative.
    """
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(values, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"sizes and values must be 1-D of equal length, got {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.unique(x).size < 2:
        raise ValueError("a fit against log(size) needs at least two distinct positive sizes")
    lx = np.log(x)
    slope, intercept = np.polyfit(lx, y, 1)
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    ss_res = float(np.sum((y - (intercept + slope * lx)) ** 2))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return ScalingFit(slope=float(slope), intercept=float(intercept), r2=float(r2), n_points=int(x.size))
