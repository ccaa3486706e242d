"""Paired bootstrap interval of a difference of means, with seeds as an outer level (a two-stage cluster bootstrap).

Why two stages: the units of one seed (the steps or states of one trajectory, the graphs of one seed) share that
seed's world and trajectory, so they are not independent draws. Resampling units alone treats a seed's quirk as
if every unit had seen it afresh and gives intervals that are too narrow. Each replicate here first draws seeds
with replacement, then, inside every drawn seed, as many units as it has, with replacement (Davison & Hinkley
1997, section 3.8). Resampling at both stages is the conservative choice: with few seeds it slightly widens the
interval rather than narrowing it. With one seed it is the ordinary paired bootstrap of units.

The statistic is a weighted mean of per-unit values: sum(w * d) / sum(w). Paired data passes d = a - b; a unit
that stands for several observations (a state visited at several steps) passes its mean as d and its count as w,
so the replicate is the mean over observations while the resampling respects the unit.

Vectorised: a replicate's draws inside a seed are indices; `np.bincount` sums them per replicate, in chunks of
replicates so memory stays bounded at any scale. The interval is the percentile interval of the replicates.

Used above `sign_flip.EXACT_MAX` groups (or units) only: with fewer, a percentile interval rests on a handful of distinct
resamples (3 units have 10) and undercovers; `stats.compare` then uses the exact interval of `sign_flip`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_DRAWS = 4_000_000  # unit draws held in memory at once (about 32 MB of indices)


@dataclass(frozen=True)
class Interval:
    """A point estimate and its two-sided interval (`method`: how it was made); nan ends when it cannot be
    estimated (fewer than two units), infinite ends when the units cannot bound it at this level."""

    estimate: float
    low: float
    high: float
    confidence: float
    resamples: int
    n_units: int
    n_groups: int
    method: str = "bootstrap"

    @property
    def defined(self) -> bool:
        return bool(np.isfinite(self.low) and np.isfinite(self.high))


def _as_groups(groups, n: int) -> np.ndarray:
    if groups is None:
        return np.zeros(n, dtype=np.int64)
    g = np.asarray(groups)
    if g.shape != (n,):
        raise ValueError(f"groups must have one label per unit ({n}), got shape {g.shape}")
    return np.unique(g, return_inverse=True)[1].ravel()


def replicate_means(values, groups=None, weights=None, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """`resamples` bootstrap replicates of the weighted mean of `values`, seeds (`groups`) resampled first.

    values: one number per unit; groups: the unit's seed (any labels; None = one seed); weights: the unit's
    number of observations (None = 1 each).
    """
    v = np.asarray(values, dtype=float).ravel()
    n = v.size
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float).ravel()
    if w.shape != (n,) or np.any(w < 0) or not np.all(np.isfinite(v)):
        raise ValueError("values must be finite and weights non-negative, one per unit")
    labels = _as_groups(groups, n)
    order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    wv, ws = (w * v)[order], w[order]
    n_groups = sizes.size
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    chunk = max(1, MAX_DRAWS // max(n, 1))
    for first in range(0, resamples, chunk):
        r = min(chunk, resamples - first)
        if n_groups > 1:
            times = rng.multinomial(n_groups, np.full(n_groups, 1.0 / n_groups), size=r)  # (r, seeds)
        else:
            times = np.ones((r, 1), dtype=np.int64)
        num, den = np.zeros(r), np.zeros(r)
        for g in range(n_groups):
            draws = times[:, g] * sizes[g]  # units drawn from seed g in each replicate
            total = int(draws.sum())
            if total == 0:
                continue
            idx = starts[g] + rng.integers(0, sizes[g], size=total)
            rep = np.repeat(np.arange(r), draws)
            num += np.bincount(rep, weights=wv[idx], minlength=r)
            den += np.bincount(rep, weights=ws[idx], minlength=r)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[first : first + r] = num / den
    return out


def mean_interval(
    values, groups=None, weights=None, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """Percentile interval of the weighted mean of `values` (see `replicate_means`).

    Fewer than two units carry no spread to resample: the interval is then undefined (nan ends), never a point
    that would pass for certainty.
    """
    v = np.asarray(values, dtype=float).ravel()
    w = np.ones(v.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    n_groups = int(np.unique(np.asarray(groups)).size) if groups is not None and v.size else min(v.size, 1)
    estimate = float(np.sum(w * v) / np.sum(w)) if v.size and np.sum(w) > 0 else float("nan")
    if v.size < 2:
        return Interval(estimate, float("nan"), float("nan"), confidence, resamples, int(v.size), n_groups)
    reps = replicate_means(v, groups, w, resamples, seed)
    reps = reps[np.isfinite(reps)]
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(reps, [tail, 1.0 - tail])
    return Interval(estimate, float(low), float(high), confidence, resamples, int(v.size), n_groups)
