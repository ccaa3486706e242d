"""Bounded per-unit differences drawn to -1, 0 or 1 with the same mean, so that the exact test of paired proportions
holds for them (Schlag 2008, "A new method for constructing exact tests without making any assumptions", Universitat
Pompeu Fabra working paper 1109: randomly transform [0, 1] outcomes into yes/no ones with the same mean, then test
those exactly).

Why: a share (evidence coverage over several turns, token F1, a question's mean over seeds, a conversation's mean
over its questions) has no symmetry about a threshold, which the sign-flip test assumes; it is bounded, which it
may be used for. A unit's difference d in [-1, 1] becomes 1 with chance d when d > 0, -1 with chance -d when
d < 0, and 0 otherwise; units are drawn independently. Each drawn unit then has the expectation d, so the drawn
units are independent trinomials whose p10 - p01 is the mean of the d's, and the exact unconditional test of
`stats.paired_proportions` is exact for them whatever the shares' distribution: a false HELD stays at the level on
every bounded outcome (benchmarks/bench_verdict.py measures it). Differences already -1, 0 or 1 are kept as they are,
so yes/no outcomes read exactly as before.

What it costs: the draw adds noise to the shares strictly between the values, less the closer they sit to -1, 0
and 1 (coverage and F1 carry most of their mass there). A test of the bounded mean by a mixture of constant bets
(Waudby-Smith & Ramdas 2023), valid without a draw, was measured beside it while choosing: a claim "> -0.05" at a
true F1 difference of +0.05 over 100 questions (independent arms' F1 with mass at 0 and 1, 200 simulated data
sets) was HELD in 4% by betting and in 27.5% by this draw and paired proportions. The draw is seeded (`stats.seed`), so a table is the same run to run; a row whose shares sit
near its threshold can change verdict with the seed, as a randomised test does.
"""

from __future__ import annotations

import numpy as np

_TOL = 1e-9  # a mean over seeds that should be 1 may be 1 - 1e-16


def draw(values, seed: int) -> np.ndarray:
    """Each difference in [-1, 1] drawn to -1, 0 or 1 with its own expectation (`stats.seed` = `seed`)."""
    d = np.asarray(values, dtype=float).ravel()
    if d.size and (not np.all(np.isfinite(d)) or np.abs(d).max() > 1.0 + _TOL):
        raise ValueError("bounded differences must lie in [-1, 1] (arms whose values lie in [0, 1])")
    d = np.clip(np.where(np.abs(d - np.round(d)) < _TOL, np.round(d), d), -1.0, 1.0)
    u = np.random.default_rng(seed).random(d.size)
    return np.sign(d) * (u < np.abs(d))
