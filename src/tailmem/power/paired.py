"""Power of a planned paired comparison: before any call, how likely a claims row's test is to decide its claim
at an assumed effect, and which units, calls and seconds would make it likely.

Why these pieces. A claims row reads one mean difference per independent unit (a run, a question, a game) and tests
the units' mean against the claim's threshold at the one-sided level alpha (`tailmem.stats.compare`). Each unit's
mean carries two spreads: the spread between units (`sd_between`: what the row would see with every step called)
and, when a plan calls only a sample of a unit's steps, the sample's own (`draw_variance`: a stratified sample
without replacement, each draw weighted by its stratum's size / drawn). The row's power is then that of a
one-sided test of a mean over `units` values whose SD is sqrt(sd_between^2 + draw variance): the noncentral t
(`power`), checked against the row's exact sign-flip test by simulation (tests/control/test_plan_power.py). A test
that cannot reach alpha with every unit on the claim's side (2^-units > alpha) has no power at any effect. A row
is decided when either side's test rejects (HELD or NOT HELD, `decided`): what a plan buys is decisions.

A budget buys calls; `spend` picks, for each claim group, one of its plans (calls, expected claims decided) to
maximise the decisions the budget buys (a multiple-choice knapsack, solved exactly on a grid of the budget).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import stats as sps

DIRECTIONS = ("greater", "less")
MOST_UNITS = 100_000  # units_for gives up here: "no number of units" rather than a loop without end


def smallest_p(units: int) -> float:
    """The smallest one-sided p an exact sign-flip test over `units` can reach: every unit on the claim's side."""
    return 0.5 ** max(int(units), 0)


def power(effect: float, sd: float, units: int, alpha: float, direction: str, threshold: float = 0.0) -> float:
    """The chance that a one-sided test over `units` unit means decides `direction` of `threshold` when the units'
    mean difference is `effect` and one unit's SD is `sd`: the noncentral t, or up to `FLIP_CURVE_MAX` units the
    exact sign-flip test's own power for normal unit means (`_flip_power`: at 6 units the t says 0.80 where the
    flips reach 0.63); 0 below the units an exact sign-flip test needs to reach `alpha`."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction {direction!r}: expected one of {DIRECTIONS}")
    if not (math.isfinite(effect) and math.isfinite(sd)) or units < 2 or smallest_p(units) > alpha:
        return 0.0
    shift = (effect - threshold) if direction == "greater" else (threshold - effect)
    if sd <= 0:
        return 1.0 if shift > 0 else 0.0
    if units <= FLIP_CURVE_MAX:
        return _flip_power(int(units), round(alpha, 12), shift / sd)
    df = units - 1
    critical = sps.t.ppf(1.0 - alpha, df)
    return float(sps.nct.sf(critical, df, shift * math.sqrt(units) / sd))


FLIP_CURVE_MAX = 10  # up to here every one of the 2^units flips is cheap to enumerate for the power curve
_CURVE = np.linspace(-1.0, 4.0, 81)  # standardized effects (mean / SD of one unit) the curve is simulated at


@lru_cache(maxsize=64)
def _flip_curve(units: int, alpha: float) -> np.ndarray:
    """The exact sign-flip test's power at each standardized effect of `_CURVE`, for `units` normal unit means
    (3,000 samples of a fixed seed: the same curve every time, its error at most 0.01). The test is
    `stats.sign_flip.p_value`'s, every flip enumerated."""
    flips = 1.0 - 2.0 * ((np.arange(2**units)[:, None] >> np.arange(units)) & 1)  # the identity first
    z = np.random.default_rng(0).standard_normal((3000, units))
    out = np.empty(_CURVE.size)
    for i, m in enumerate(_CURVE):
        x = z + m
        null = x @ flips.T  # each sample's sum under every flip (the identity first: the observed sum)
        tol = 1e-12 * np.abs(x).sum(axis=1, keepdims=True)
        p = np.mean(null >= null[:, :1] - tol, axis=1)
        out[i] = np.mean(p <= alpha)
    return out


def _flip_power(units: int, alpha: float, standardized: float) -> float:
    return float(np.interp(standardized, _CURVE, _flip_curve(units, alpha)))


def decided(effect: float, sd: float, units: int, alpha: float, threshold: float = 0.0) -> float:
    """The chance that a row is decided at all, HELD or NOT HELD: a one-sided test on either side of `threshold`
    rejects (`power` on both sides). A claim whose effect lies on the other side is decided too (NOT HELD)."""
    return sum(power(effect, sd, units, alpha, side, threshold) for side in DIRECTIONS)


def units_for(
    effect: float,
    sd: float,
    alpha: float,
    threshold: float = 0.0,
    target: float = 0.8,
    least: int = 2,
) -> int | None:
    """The fewest units (at least `least`) at which a row is `decided` with chance `target`; None when no number
    does (no effect, or reaching it would take more than MOST_UNITS)."""

    def enough(n: int) -> bool:
        return decided(effect, sd, n, alpha, threshold) >= target

    if not enough(MOST_UNITS):
        return None
    lo, hi = max(least, 2), max(least, 2)
    while not enough(hi):
        lo, hi = hi + 1, hi * 2
    while lo < hi:  # power rises with units (past the sign-flip floor): the first n that is enough
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid + 1, hi)
    return lo


def neyman(sizes: Sequence[float], sds: Sequence[float], calls: int) -> list[int]:
    """Draws per stratum for `calls` draws in all: the Neyman allocation (in proportion to size x SD, the least
    variance of the weighted mean), never more than a stratum holds (a full stratum's share goes to the others),
    rounded by largest remainder, and at least one in each non-empty stratum (an undrawn stratum would leave the
    unit's mean biased; with fewer calls than strata that is one each)."""
    size = np.asarray(sizes, dtype=float)
    share = size * np.maximum(np.asarray(sds, dtype=float), 1e-9)  # a stratum of no spread still takes one draw
    live = size > 0
    n = float(min(max(calls, 0), size.sum()))
    if n <= 0:
        return [0] * size.size
    exact = np.zeros(size.size)
    free = live.copy()
    while free.any():  # the continuous allocation, capped at each stratum's size
        x = np.where(free, (n - exact[~free].sum()) * share / share[free].sum(), 0.0)
        over = free & (x > size)
        if not over.any():
            exact[free] = x[free]
            break
        exact[over], free = size[over], free & ~over
    out = np.where(live, np.maximum(np.floor(exact + 1e-9), 1), 0).astype(int)
    order = np.argsort(-(exact - np.floor(exact + 1e-9)), kind="stable")  # largest remainder first
    while out.sum() < n and (room := [i for i in order if out[i] < size[i]]):
        out[room[0]] += 1
        order = np.array([i for i in order if i != room[0]] + [room[0]])
    while out.sum() > max(n, live.sum()):  # the one-draw floor overshot: take back from the largest
        out[int(np.argmax(np.where(out > 1, out - exact, -np.inf)))] -= 1
    return out.tolist()


def draw_variance(sizes: Sequence[float], sds: Sequence[float], draws: Sequence[int], total: float) -> float:
    """Variance of a unit's mean over `total` steps when each stratum of `sizes` steps (per-step SD `sds`) is
    known from `draws` of its steps drawn without replacement, each weighing size / drawn, and the other steps are
    known exactly: sum of (N_h / N)^2 (1 - n_h / N_h) S_h^2 / n_h. Infinite when a non-empty stratum is undrawn."""
    v = 0.0
    for n_h, s_h, k in zip(sizes, sds, draws):
        if n_h <= 0:
            continue
        if k <= 0:
            return math.inf
        v += (n_h / total) ** 2 * max(1.0 - k / n_h, 0.0) * s_h**2 / k
    return v


def spend(options: Sequence[Sequence[tuple[float, float]]], budget: float, grid: int = 2000) -> list[int]:
    """For each group, the index of one of its `options` (cost, value) so that the values sum to the most the
    `budget` allows: a multiple-choice knapsack, solved exactly with costs rounded up to a `grid` of the budget (a
    plan never spends more than the budget). Each group's option 0 should cost nothing (spend nothing there)."""
    if budget <= 0:
        return [min(range(len(o)), key=lambda i: o[i][0]) for o in options]
    unit = budget / grid
    best = np.full(grid + 1, -np.inf)
    best[0] = 0.0
    picks = []
    for opts in options:
        new = np.full(grid + 1, -np.inf)
        pick = np.full(grid + 1, -1, dtype=int)
        for i, (cost, value) in enumerate(opts):
            c = int(math.ceil(cost / unit - 1e-9))
            if c > grid:
                continue
            shifted = np.full(grid + 1, -np.inf)
            shifted[c:] = best[: grid + 1 - c] + value
            better = shifted > new + 1e-12
            new[better], pick[better] = shifted[better], i
        best = new
        picks.append(pick)
    spent = int(np.argmax(best))
    chosen = []
    for opts, pick in zip(reversed(options), reversed(picks)):
        i = int(pick[spent])
        chosen.append(i)
        spent -= int(math.ceil(opts[i][0] / unit - 1e-9))
    return chosen[::-1]
