"""One compared metric of a claims row: paired differences in, interval + the claim's test + verdict out.

The report modules build the per-unit differences (their unit, their seeds); this module is the one place that
turns them into the columns every claims table shares, so all claims read alike (`COLUMNS`):
`estimate, ci_low, ci_high` (the mean difference and its two-sided interval), `ci_method` (the inversion of
the sign-flip test: exact up to `sign_flip.EXACT_MAX` units, random flips above; units nested in seeds or runs
above that range: the percentile bootstrap, seeds or runs first; yes/no outcomes: paired proportions, below),
`n_units, n_seeds`, `side` (the side of the threshold the claim names), `p_held` and `p_not_held` (one-sided p of
the row's test that the mean lies on the claim's side, and on the other side, against the threshold; for "within"
the larger of the two one-sided tests against the margin, TOST), `verdict` and `reason` (why a row is
INCONCLUSIVE).

Units are independent unless `clustered`: then the groups are the independent units (the runs of a study whose
states share a trajectory), the test and the exact interval read each group's weighted mean, and the bootstrap
resamples groups, then units within them.

A metric that is yes/no per unit (correct, covered, won) is declared with `outcome="binary"`: its differences are
-1, 0 or 1, never symmetric about a margin as the sign-flip test assumes, so they get the exact test and interval
of paired proportions (`stats.paired_proportions`), with the question or game as the unit. Arms that never
disagree carry no evidence of a tie: an undecided row says "uninformative". A clustered unit whose mean is no
longer -1, 0 or 1 (a question whose seeds disagree, a share of evidence turns) keeps the sign-flip path, and
`ci_method` says so: rounding such means outwards to yes/no would be valid, but at three seeds it hid the
planted losses of the LongMemEval tests (docs/stats.md measures what the sign flips cost there).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from tailmem.settings.stats import StatsGroup
from tailmem.stats import paired_proportions, sign_flip
from tailmem.stats.bootstrap import Interval, mean_interval
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
PAIRED_PROPORTIONS = "paired proportions (exact score)"
OUTCOMES = ("continuous", "binary")
UNINFORMATIVE = "uninformative: the arms never disagree (no evidence of a tie)"


@dataclass(frozen=True)
class Sample:
    """The per-unit differences a comparison was made from, kept so it can be re-read against another side."""

    diff: np.ndarray
    groups: np.ndarray | None
    weights: np.ndarray | None
    clustered: bool
    outcome: str = "continuous"


@dataclass(frozen=True)
class Comparison:
    interval: Interval
    direction: str
    threshold: float
    p_held: float
    p_not_held: float
    verdict: str
    reason: str
    settings: StatsGroup = field(repr=False)
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
            outcome=s.outcome,
        )


def _by_group(d: np.ndarray, groups, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each group's weighted mean and total weight: the values of a clustered test."""
    labels = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    total = np.bincount(labels, weights=w)
    return np.bincount(labels, weights=w * d) / total, total


def _tests(p, direction: str, threshold: float) -> tuple[float, float]:
    """(p_held, p_not_held): the one-sided tests whose rejection supports each verdict; `p(alternative, t)` is
    the one-sided p that the mean lies `alternative` of t."""
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
    settings: StatsGroup,
    clustered: bool = False,
    outcome: str = "continuous",
) -> Comparison:
    """Interval of the (weighted) mean of the per-unit differences `diff` (seeds `groups` resampled first), the
    claim's one-sided tests against `threshold` and the verdict for (`direction`, `threshold`). `outcome`
    "binary": `diff` is a - b of two yes/no outcomes per unit (module docstring)."""
    if clustered and groups is None:
        raise ValueError("clustered: the groups are the independent units, so they must be given")
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome {outcome!r}: expected one of {OUTCOMES}")
    s = settings
    d = np.asarray(diff, dtype=float).ravel()
    w = np.ones(d.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    values, unit_w = _by_group(d, groups, w) if clustered and d.size else (d, w)
    sample = Sample(
        d, None if groups is None else np.asarray(groups), None if weights is None else w, clustered, outcome
    )
    if outcome == "binary":
        if not clustered and not (np.all(np.isin(d, (-1.0, 0.0, 1.0))) and np.all(w == w[:1])):
            raise ValueError("a binary outcome's differences are -1, 0 or 1, one unweighted unit each")
        yes_no = np.round(values, 9)  # a mean over seeds that should be 1 may be 1 - 1e-16
        if np.all(np.isin(yes_no, (-1.0, 0.0, 1.0))):
            n_units = yes_no.size if clustered else _n_groups(groups, yes_no.size)
            return _paired_proportions(yes_no, n_units, direction, float(threshold), s, sample)
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

    def p(alternative: str, t: float) -> float:
        return sign_flip.p_value(values, unit_w, t, alternative, s.resamples, s.seed)

    p_held, p_not_held = _tests(p, direction, float(threshold))
    v, reason = decide(verdict(interval.low, interval.high, direction, threshold), p_held, p_not_held, n, s)
    return Comparison(interval, direction, float(threshold), p_held, p_not_held, v, reason, s, sample)


def _paired_proportions(
    x: np.ndarray, n_groups: int, direction: str, threshold: float, s: StatsGroup, sample: Sample
) -> Comparison:
    """The claims row of yes/no differences `x`: the exact score interval and tests of p10 - p01."""
    n10, n01, n = paired_proportions.counts(x)
    nan = float("nan")
    low, high = paired_proportions.interval(n10, n01, n, s.confidence) if n >= 2 else (nan, nan)
    interval = Interval((n10 - n01) / n if n else nan, low, high, s.confidence, 0, n, n_groups, PAIRED_PROPORTIONS)

    def p(alternative: str, t: float) -> float:
        return paired_proportions.p_value(n10, n01, n, t, alternative)

    p_held, p_not_held = _tests(p, direction, threshold)
    v, reason = decide(verdict(low, high, direction, threshold), p_held, p_not_held, n, s)
    if v == INCONCLUSIVE and n >= s.min_units and n10 + n01 == 0:  # rather than "interval crosses the threshold"
        reason = UNINFORMATIVE
    return Comparison(interval, direction, threshold, p_held, p_not_held, v, reason, s, sample)


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
