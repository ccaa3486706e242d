"""One compared metric of a claims row: paired differences in, interval + the claim's test + verdict out.

The report modules build the per-unit differences (their unit, their seeds); this module is the one place that
turns them into the columns every claims table shares, so all claims read alike (`COLUMNS`):
`estimate, ci_low, ci_high` (the mean difference and its two-sided interval), `ci_method` (the inversion of
the sign-flip test: exact up to `sign_flip.EXACT_MAX` units, random flips above; units nested in seeds or runs
above that range: the percentile bootstrap, seeds or runs first), `n_units, n_seeds`, `side` (the side of
the threshold the claim names), `p_held` and `p_not_held` (one-sided p of the sign-flip test that the mean lies on
the claim's side, and on the other side, against the threshold; for "within" the larger of the two one-sided
tests against the margin, TOST), `verdict` and `reason` (why a row is INCONCLUSIVE).

Units are independent unless `clustered`: then the groups are the independent units (the runs of a study whose
states share a trajectory), the test and the exact interval read each group's weighted mean, and the bootstrap
resamples groups, then units within them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from tailmem.stats import sign_flip
from tailmem.stats.bootstrap import Interval, mean_interval
from tailmem.stats.settings import StatsSettings
from tailmem.stats.verdict import INCONCLUSIVE, claim_text, decide, verdict

COLUMNS = (
    "estimate",
    "ci_low",
    "ci_high",
    "ci_method",
    "n_units",
    "n_seeds",
    "side",
    "p_held",
    "p_not_held",
    "verdict",
    "reason",
)
EXACT = "exact (sign flips)"


@dataclass(frozen=True)
class Sample:
    """The per-unit differences a comparison was made from, kept so it can be re-read against another side."""

    diff: np.ndarray
    groups: np.ndarray | None
    weights: np.ndarray | None
    clustered: bool


@dataclass(frozen=True)
class Comparison:
    interval: Interval
    direction: str
    threshold: float
    p_held: float
    p_not_held: float
    verdict: str
    reason: str
    settings: StatsSettings = field(repr=False)
    sample: Sample = field(repr=False, compare=False)

    def row(self) -> dict:
        """The shared claims columns (`COLUMNS`)."""
        i = self.interval
        return {
            "estimate": i.estimate,
            "ci_low": i.low,
            "ci_high": i.high,
            "ci_method": i.method,
            "n_units": i.n_units,
            "n_seeds": i.n_groups,
            "side": claim_text(self.direction, self.threshold),
            "p_held": self.p_held,
            "p_not_held": self.p_not_held,
            "verdict": self.verdict,
            "reason": self.reason,
        }

    def against(self, direction: str, threshold: float) -> "Comparison":
        """The same differences read against another side (paper 1's 24.48% instead of 0)."""
        s = self.sample
        return compare(
            s.diff,
            s.groups,
            s.weights,
            direction=direction,
            threshold=threshold,
            settings=self.settings,
            clustered=s.clustered,
        )


def _by_group(d: np.ndarray, groups, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each group's weighted mean and total weight: the values of a clustered test."""
    labels = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    total = np.bincount(labels, weights=w)
    return np.bincount(labels, weights=w * d) / total, total


def _tests(values, weights, direction: str, threshold: float, s: StatsSettings) -> tuple[float, float]:
    """(p_held, p_not_held): the one-sided tests whose rejection supports each verdict."""

    def p(alternative: str, t: float) -> float:
        return sign_flip.p_value(values, weights, t, alternative, s.resamples, s.seed)

    if direction == "greater":
        return p("greater", threshold), p("less", threshold)
    if direction == "less":
        return p("less", threshold), p("greater", threshold)
    m = abs(threshold)  # within: both one-sided tests against the margin must reject (TOST)
    return max(p("greater", -m), p("less", m)), min(p("greater", m), p("less", -m))


def compare(
    diff,
    groups=None,
    weights=None,
    *,
    direction: str,
    threshold: float = 0.0,
    settings: StatsSettings,
    clustered: bool = False,
) -> Comparison:
    """Interval of the (weighted) mean of the per-unit differences `diff` (seeds `groups` resampled first), the
    claim's one-sided tests against `threshold` and the verdict for (`direction`, `threshold`)."""
    if clustered and groups is None:
        raise ValueError("clustered: the groups are the independent units, so they must be given")
    s = settings
    d = np.asarray(diff, dtype=float).ravel()
    w = np.ones(d.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    values, unit_w = _by_group(d, groups, w) if clustered and d.size else (d, w)
    n = int(values.size)
    n_groups = n if clustered else _n_groups(groups, n)
    estimate = float(np.sum(unit_w * values) / np.sum(unit_w)) if n and np.sum(unit_w) > 0 else float("nan")
    nested = clustered or 1 < n_groups < n  # units within seeds or runs: above the exact range, resample those first
    if n < 2:  # no spread to read: undefined, never a point that would pass for certainty
        interval = Interval(estimate, float("nan"), float("nan"), s.confidence, 0, n, n_groups, "")
    elif n <= sign_flip.EXACT_MAX or not nested:
        low, high = sign_flip.interval(values, unit_w, s.confidence, s.resamples, s.seed)
        method = EXACT if n <= sign_flip.EXACT_MAX else f"sign flips ({s.resamples} random)"
        interval = Interval(estimate, low, high, s.confidence, 0, n, n_groups, method)
    else:
        interval = replace(mean_interval(d, groups, w, s.confidence, s.resamples, s.seed), n_units=n)
    p_held, p_not_held = _tests(values, unit_w, direction, float(threshold), s)
    v, reason = decide(verdict(interval.low, interval.high, direction, threshold), p_held, p_not_held, n, s)
    sample = Sample(d, None if groups is None else np.asarray(groups), None if weights is None else w, clustered)
    return Comparison(interval, direction, float(threshold), p_held, p_not_held, v, reason, s, sample)


def _n_groups(groups, n: int) -> int:
    return int(np.unique(np.asarray(groups)).size) if groups is not None else min(n, 1)


def missing(side: str = "", reason: str = "no data") -> dict:
    """The shared columns of a row whose data is absent: no interval, INCONCLUSIVE."""
    nan = float("nan")
    return {
        "estimate": nan,
        "ci_low": nan,
        "ci_high": nan,
        "ci_method": "",
        "n_units": 0,
        "n_seeds": 0,
        "side": side,
        "p_held": nan,
        "p_not_held": nan,
        "verdict": INCONCLUSIVE,
        "reason": reason,
    }
