"""One compared metric of a claims row: paired differences in, interval + the claim's test + verdict out.

The report modules build the per-unit differences (their unit, their seeds); this module is the one place that
turns them into the columns every claims table shares, so all claims read alike (`COLUMNS`):
`estimate, ci_low, ci_high` (the mean difference and its two-sided interval), `ci_method` (how it was made, below),
`n_units, n_seeds`, `side` (the side of the threshold the claim names), `p_held` and `p_not_held` (one-sided p of
the row's test that the mean lies on the claim's side, and on the other side, against the threshold; for "within"
the larger of the two one-sided tests against the margin, TOST), `verdict` and `reason` (why a row is
INCONCLUSIVE).

The independent units. Units that sit in groups (`groups`: seeds, runs, conversations, questions whose seeds are
averaged) share them, so whenever there are fewer groups than units the groups are the independent units: the
test and the exact interval read each group's weighted mean, the bootstrap resamples groups, then units within
them, and `n_units` counts the groups. Two or three seeds are then "too few units", whatever the units inside
them say: treating them as independent held 12 units in 2 seeds at p = 1/4096. One group alone (one seed, one
conversation) leaves its units independent: the row is read about that seed's units. `clustered` says the groups
are the units even when each holds one unit or there is only one (the caller's unit is the group by design).

The kind of outcome (`outcome`), because the test must be valid on it:
- "continuous": the sign-flip test and its exact interval (`stats.sign_flip`) up to `sign_flip.EXACT_MAX` units,
  random flips above; groups above that range: the percentile bootstrap, groups first. It assumes the units'
  differences are symmetric about the threshold under the null, as means over many steps or seeds nearly are.
- "binary": each observation is yes/no in both arms, so a difference is -1, 0 or 1; "bounded": each arm's value
  lies in [0, 1] (a share, F1), so a difference lies in [-1, 1]. Neither is symmetric about a margin. Yes/no
  units (binary, one observation each) are read by the exact test and interval of paired proportions
  (`stats.paired_proportions`). Shares, and yes/no averaged within groups, are drawn to -1, 0 or 1 with their own
  expectation, 21 times, and the draws' exact tests merged by their median p, doubled (`stats.binarize`): valid
  on any bounded outcome. Each independent unit counts once. Arms that never disagree carry no evidence of a tie:
  an undecided row says "uninformative".
Their level on data of each kind the claims tables read is simulated by benchmarks/bench_verdict.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from tailmem.settings.stats import StatsGroup
from tailmem.stats import binarize, paired_proportions, sign_flip
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
DRAWN = f"paired proportions (exact score) of shares drawn to yes/no ({binarize.DRAWS} draws)"
OUTCOMES = ("continuous", "binary", "bounded")
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
    """Interval of the (weighted) mean of the per-unit differences `diff` (groups `groups` the independent units
    when fewer than the units), the claim's one-sided tests against `threshold` and the verdict for (`direction`,
    `threshold`). `outcome`: "continuous", "binary" (`diff` is a - b of two yes/no outcomes) or "bounded" (of two
    values in [0, 1]); module docstring."""
    if clustered and groups is None:
        raise ValueError("clustered: the groups are the independent units, so they must be given")
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome {outcome!r}: expected one of {OUTCOMES}")
    s = settings
    d = np.asarray(diff, dtype=float).ravel()
    w = np.ones(d.size) if weights is None else np.asarray(weights, dtype=float).ravel()
    sample = Sample(
        d, None if groups is None else np.asarray(groups), None if weights is None else w, clustered, outcome
    )
    n_groups = _n_groups(groups, d.size)
    grouped = bool(d.size) and (clustered or 1 < n_groups < d.size)  # the groups are the independent units
    values, unit_w = _by_group(d, groups, w) if grouped else (d, w)
    if outcome != "continuous":
        _check_bounded(d, w, outcome)
        drawn = outcome == "bounded" or values.size < d.size  # shares, or yes/no averaged within groups
        return _paired_proportions(values, drawn, n_groups, direction, float(threshold), s, sample)
    n = int(values.size)
    estimate = float(np.sum(unit_w * values) / np.sum(unit_w)) if n and np.sum(unit_w) > 0 else float("nan")
    if n < 2:  # no spread to read: undefined, never a point that would pass for certainty
        interval = Interval(estimate, float("nan"), float("nan"), s.confidence, 0, n, n_groups, "")
    elif n <= sign_flip.EXACT_MAX or not grouped:
        low, high = sign_flip.interval(values, unit_w, s.confidence, s.resamples, s.seed)
        method = EXACT if n <= sign_flip.EXACT_MAX else f"sign flips ({s.resamples} random)"
        interval = Interval(estimate, low, high, s.confidence, 0, n, n_groups, method)
    else:  # many groups: groups, then units within them, resampled
        interval = replace(mean_interval(d, groups, w, s.confidence, s.resamples, s.seed), n_units=n)

    def p(alternative: str, t: float) -> float:
        return sign_flip.p_value(values, unit_w, t, alternative, s.resamples, s.seed)

    p_held, p_not_held = _tests(p, direction, float(threshold))
    v, reason = decide(verdict(interval.low, interval.high, direction, threshold), p_held, p_not_held, n, s)
    return Comparison(interval, direction, float(threshold), p_held, p_not_held, v, reason, s, sample)


def _check_bounded(d: np.ndarray, w: np.ndarray, outcome: str) -> None:
    """A yes/no outcome's differences are -1, 0 or 1, a bounded one's lie in [-1, 1]; one unweighted unit each."""
    if not np.all(w == w[:1]):
        raise ValueError(f"a {outcome} outcome's observations are unweighted: one per unit, counted once")
    if outcome == "binary" and not np.all(np.isin(d, (-1.0, 0.0, 1.0))):
        raise ValueError(
            "a binary outcome's differences are -1, 0 or 1 (two yes/no outcomes); shares or scores in [0, 1] "
            'are outcome="bounded"'
        )
    if outcome == "bounded" and d.size and not np.all(np.abs(d) <= 1.0 + 1e-9):
        raise ValueError('a bounded outcome\'s differences lie in [-1, 1] (two values in [0, 1]); else "continuous"')


def _paired_proportions(
    values: np.ndarray, drawn: bool, n_groups: int, direction: str, threshold: float, s: StatsGroup, sample: Sample
) -> Comparison:
    """The claims row of bounded differences `values`, one per independent unit: the exact score interval and
    tests of p10 - p01, on the yes/no units themselves or, when `drawn`, merged over draws of them to yes/no
    (`stats.binarize`)."""
    n = int(values.size)
    nan = float("nan")
    if drawn:
        share = binarize.SHARE
        pairs = [paired_proportions.counts(x)[:2] for x in binarize.draws(values, s.seed)]
        confidence = 1.0 - 2.0 * s.alpha * share  # each draw read at one-sided SHARE x alpha
        ends = [paired_proportions.interval(a, b, n, confidence) for a, b in pairs] if n >= 2 else [(nan, nan)]
        low, high = binarize.merged_interval(ends)
        method = DRAWN

        def p(alternative: str, t: float) -> float:
            return binarize.merged_p([paired_proportions.p_value(a, b, n, t, alternative) for a, b in pairs])

    else:
        n10, n01, _ = paired_proportions.counts(np.round(values, 9) + 0.0)
        low, high = paired_proportions.interval(n10, n01, n, s.confidence) if n >= 2 else (nan, nan)
        method = PAIRED_PROPORTIONS

        def p(alternative: str, t: float) -> float:
            return paired_proportions.p_value(n10, n01, n, t, alternative)

    interval = Interval(float(np.mean(values)) if n else nan, low, high, s.confidence, 0, n, n_groups, method)
    p_held, p_not_held = _tests(p, direction, threshold)
    v, reason = decide(verdict(low, high, direction, threshold), p_held, p_not_held, n, s)
    if v == INCONCLUSIVE and n >= s.min_units and not np.any(values):  # rather than "interval crosses the threshold"
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
