"""Bounded per-unit differences read through yes/no draws with the same mean, so that the exact test of paired
proportions holds for them (Schlag 2008, "A new method for constructing exact tests without making any
assumptions", Universitat Pompeu Fabra working paper 1109: randomly transform [0, 1] outcomes into yes/no ones with
the same mean, test those exactly, and repeat the draw so the verdict does not rest on one of them).

Why: a share (evidence coverage over several turns, token F1, a question's mean over seeds, a conversation's mean
over its questions) has no symmetry about a threshold, which the sign-flip test assumes; it is bounded, which it
may be used for. A unit's difference d in [-1, 1] becomes 1 with chance d when d > 0, -1 with chance -d when
d < 0, and 0 otherwise; units are drawn independently. Each drawn unit then has the expectation d, so the drawn
units are independent trinomials whose p10 - p01 is the mean of the d's, and the exact unconditional test of
`stats.paired_proportions` is exact for one draw whatever the shares' distribution.

Why several draws, merged: one draw makes the verdict a lottery (a row near its threshold flips with the seed). The
test is read on `DRAWS` draws and merged: HELD when at least a share `SHARE` (half) of them reject at level
SHARE x alpha, i.e. when twice the median of the draws' p is at most alpha. That is valid whatever the draws'
dependence: the expected number rejecting is at most DRAWS x SHARE x alpha, so by Markov's inequality the chance
that SHARE x DRAWS of them do is at most alpha (twice the median of valid p-values is a valid p-value: Rueschendorf
1982, Meng 1994; Vovk & Wang 2020 for quantiles in general). Its interval, which inverts it, runs from the median
of the draws' lower ends to the median of their upper ends, each at the one-sided level alpha / 2. Differences
already -1, 0 or 1 give the same draw every time and would pay the factor 2 for nothing, so callers whose outcome
is yes/no by design (`compare(..., outcome="binary")`, one observation per unit) skip the draws.

What it costs: the draw adds noise to the shares strictly between the values, less the closer they sit to -1, 0
and 1 (coverage and F1 carry most of their mass there), and the merge reads each draw at half the level; yet the
median of 21 draws held more often than one draw did (200 simulated data sets per kind at its stated truth: F1
"> 0" at 30 questions 0.185 against 0.09, LongMemEval accuracy over 3 seeds at 60 questions 0.93 against 0.59),
since one draw's p is often far from the typical one; 5 draws did as well as 21 there. A test of the bounded mean
by a mixture of constant bets (Waudby-Smith & Ramdas 2023), valid without a draw, was measured beside one draw: a claim "> -0.05" at a true F1 difference of +0.05 over 100 questions (independent
arms' F1 with mass at 0 and 1, 200 simulated data sets) was HELD in 4% by betting and in 27.5% by one draw and
paired proportions.

The draws are keyed by `stats.seed`, the row's differences and the draw's number, so a table is the same run to
run and each row has its own draws (one sequence shared by every row would make each row's level depend on it).
"""

from __future__ import annotations

import math
import zlib

import numpy as np

DRAWS = 21
SHARE = 0.5  # of the draws that must reject, each at SHARE x alpha: the median p, doubled
_TOL = 1e-9  # a mean over seeds that should be 1 may be 1 - 1e-16


def draws(values, seed: int, count: int = DRAWS) -> np.ndarray:
    """`count` draws (rows) of the differences in [-1, 1], each unit -1, 0 or 1 with its own expectation; keyed
    by `seed` (`stats.seed`) and the differences."""
    d = np.asarray(values, dtype=float).ravel()
    if d.size and (not np.all(np.isfinite(d)) or np.abs(d).max() > 1.0 + _TOL):
        raise ValueError("bounded differences must lie in [-1, 1] (arms whose values lie in [0, 1])")
    d = np.clip(np.where(np.abs(d - np.round(d)) < _TOL, np.round(d), d), -1.0, 1.0) + 0.0  # no -0.0
    u = np.random.default_rng([int(seed), zlib.crc32(d.tobytes())]).random((count, d.size))
    return np.sign(d) * (u < np.abs(d))


def _rank(count: int) -> int:
    return math.ceil(SHARE * count - 1e-9)


def merged_p(p_values) -> float:
    """The merged test's p: the ceil(SHARE x count)-th smallest of the draws' p, divided by SHARE."""
    p = np.sort(np.asarray(p_values, dtype=float))
    return float(min(1.0, p[_rank(p.size) - 1] / SHARE))


def merged_interval(ends) -> tuple[float, float]:
    """The merged interval from the draws' (low, high) at one-sided level SHARE x alpha: the ceil(SHARE x count)-th
    largest low and smallest high."""
    lows, highs = (np.asarray(x, dtype=float) for x in zip(*ends))
    k = _rank(lows.size)
    return float(np.sort(lows)[::-1][k - 1]), float(np.sort(highs)[k - 1])
