"""Simulated data sets of every kind of outcome the claims tables read, with a planted mean difference, so the claims
rule's level and power can be measured on data of that shape (benchmarks/bench_verdict.py,
tests/stats/test_verdict_level.py) before it decides a row.

Each `Kind` names the rows it stands for, the `outcome` and grouping its callers pass to `stats.compare`, the claim
(direction, threshold) those rows make, the truth on the claim's boundary (where every HELD is false) and the truth
at which its power is stated. `draw(rng, truth, units)` returns one data set whose population mean difference is
`truth`: (per-unit differences, groups, clustered).

Shapes, from the pipeline's own data: yes/no per question (a judge's verdict, a game won), with a share of
discordant questions; a question's yes/no over three seeds whose arms disagree in some seeds (LongMemEval accuracy);
evidence coverage, the share of a question's 1-3 evidence turns kept, with mass at 0 and 1; token F1 per question,
with mass at 0 and 1 and identical answers for half the questions (80% for a tie of harnesses); yes/no questions
nested in conversations or chain seeds that shift the difference; continuous values nested in seeds with a seed
effect; per-seed values, normal and skewed (the long tail on either side of the claim); a controller run's mean
over 100 tail steps with a run effect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

Draw = Callable[[np.random.Generator, float, int], tuple[np.ndarray, np.ndarray | None, bool]]


@dataclass(frozen=True)
class Kind:
    name: str
    rows: str  # the claims rows of this kind
    outcome: str  # compare(..., outcome=)
    direction: str
    threshold: float
    boundary: float  # the truth where HELD is false
    effect: float  # the truth at which power is stated
    units: tuple[int, ...]  # independent units (questions, seeds, runs) per data set
    draw: Draw
    group_size: int = 1  # observations per independent unit (seeds per question, units per seed, steps per run)


def _trinomial(rng, delta: np.ndarray, discordant: float) -> np.ndarray:
    """-1 / 0 / 1 per unit with P(1) - P(-1) = delta and P(1) + P(-1) = max(discordant, |delta|)."""
    disc = np.maximum(discordant, np.abs(delta))
    u = rng.random(np.shape(delta))
    p10 = (disc + delta) / 2
    return np.where(u < p10, 1.0, np.where(u < disc, -1.0, 0.0))


def yes_no(rng, truth, n):
    return _trinomial(rng, np.full(n, truth), 0.3), None, False


def yes_no_over_seeds(rng, truth, n, seeds=3):
    """Graph Memory right on 60% of questions; CTMC loses a right one with chance q in each seed (truth < 0) or wins
    a wrong one with chance g (truth > 0): truth = 0.4 g - 0.6 q."""
    right = np.repeat(rng.random(n) < 0.6, seeds)
    u = rng.random(n * seeds)
    q, g = max(0.0, -truth / 0.6), max(0.0, truth / 0.4)
    d = np.where(right, -(u < q).astype(float), (u < g).astype(float))
    return d, np.repeat(np.arange(n), seeds), True


def coverage(rng, truth, n):
    """Each question has 1-3 evidence turns; Graph Memory keeps each with chance 0.8. CTMC's smaller budget loses
    the question's whole evidence with chance q = (0.1 - truth) / 0.9, else keeps Graph Memory's turns and adds
    each dropped one with chance 0.5 (truth <= 0.1): rare large losses beside frequent small gains, the shape
    whose samples often show only gains."""
    k = rng.integers(1, 4, n)
    d = np.zeros(n)
    lost = rng.random(n) < (0.1 - truth) / 0.9
    for turns in (1, 2, 3):
        at = k == turns
        gm = rng.random((at.sum(), turns)) < 0.8
        ctmc = np.where(lost[at, None], False, gm | (rng.random(gm.shape) < 0.5))
        d[at] = (ctmc.sum(1) - gm.sum(1)) / turns
    return d, np.arange(n), True


def _f1(rng, n, shift):
    """Per-question token F1: 0 with chance 0.4 - shift, 1 with chance 0.3 + shift, else uniform (mean 0.45 + shift)."""
    u = rng.random(n)
    return np.where(u < 0.4 - shift, 0.0, np.where(u < 0.7, 1.0, rng.random(n)))


def f1(rng, truth, n, same=0.5):
    """A share `same` of the questions answered identically by both arms (difference 0); the rest F1 of two
    answers, arm a's shifted so the mean difference is `truth`."""
    alike = rng.random(n) < same
    d = _f1(rng, n, truth / (1 - same)) - _f1(rng, n, 0.0)
    return np.where(alike, 0.0, d), None, False


def f1_alike(rng, truth, n):
    """Harnesses that answer 80% of questions identically (the smoke run's tie: all 10 alike)."""
    return f1(rng, truth, n, same=0.8)


def yes_no_in_groups(rng, truth, n, per=10):
    """n conversations (chain seeds) of `per` yes/no questions; each group's difference is truth + N(0, 0.15)."""
    delta = np.clip(truth + rng.normal(0.0, 0.15, n), -0.4, 0.4)
    return _trinomial(rng, np.repeat(delta, per), 0.4), np.repeat(np.arange(n), per), False


def continuous_in_seeds(rng, truth, n, per=4):
    """n seeds of `per` units (graphs of several families): seed effect N(0, 0.5) plus unit noise N(0, 1)."""
    d = truth + np.repeat(rng.normal(0.0, 0.5, n), per) + rng.normal(0.0, 1.0, n * per)
    return d, np.repeat(np.arange(n), per), False


def normal(rng, truth, n):
    return truth + rng.normal(0.0, 1.0, n), np.arange(n), False


def skewed(rng, truth, n):
    """Exponential (skewness 2), its long tail on the claim's side."""
    return truth + rng.exponential(1.0, n) - 1.0, np.arange(n), False


def skewed_against(rng, truth, n):
    """Exponential, its long tail against the claim: most values sit on the claim's side."""
    return truth - rng.exponential(1.0, n) + 1.0, np.arange(n), False


def run_steps(rng, truth, n, steps=100):
    """n runs (family x seed) of `steps` tail steps whose error differs by -1 / 0 / 1 (10% discordant); each run's
    difference is truth + N(0, 0.035), the spread between runs the controller study measures."""
    delta = np.clip(truth + rng.normal(0.0, 0.035, n), -0.1, 0.1)
    return _trinomial(rng, np.repeat(delta, steps), 0.1), np.repeat(np.arange(n), steps), True


M = 0.05  # the margin of the tie and non-inferiority claims (stats.margins.fsmem_tie, noninferiority_margin)
KINDS = (
    Kind("yes/no", "fsmem judged, ALFWorld one chain, LongMemEval accuracy one seed", "binary",
         "greater", 0.0, 0.0, 0.25, (12, 30), yes_no),
    Kind("yes/no over 3 seeds", "LongMemEval accuracy", "binary",
         "greater", -M, -M, 0.05, (30, 60), yes_no_over_seeds, 3),
    Kind("coverage share", "LongMemEval coverage", "bounded",
         "greater", -M, -M, 0.05, (6, 12, 30), coverage),
    Kind("F1, tie", "fsmem harnesses tie (F1)", "bounded",
         "within", M, M, 0.0, (10, 30), f1_alike),
    Kind("F1, > 0", "fsmem store vs closed book (F1)", "bounded",
         "greater", 0.0, 0.0, 0.15, (10, 30), f1),
    Kind("yes/no in groups", "fsmem judged over conversations, ALFWorld over chain seeds", "binary",
         "greater", 0.0, 0.0, 0.25, (3, 10), yes_no_in_groups, 10),
    Kind("continuous in seeds", "random walk, all families (graphs in seeds)", "continuous",
         "greater", 0.0, 0.0, 1.0, (3, 8), continuous_in_seeds, 4),
    Kind("continuous per seed, normal", "random walk and controller slopes, Gini, R per seed", "continuous",
         "greater", 0.0, 0.0, 0.8, (10, 30), normal),
    Kind("continuous, skewed with the claim", "tokens, costs", "continuous",
         "greater", 0.0, 0.0, 0.8, (10, 30), skewed),
    Kind("continuous, skewed against the claim", "tokens, costs", "continuous",
         "greater", 0.0, 0.0, 0.8, (10, 30), skewed_against),
    Kind("run means of steps", "controller tail error and coverage (runs)", "continuous",
         "greater", 0.0, 0.0, 0.04, (8, 12), run_steps, 100),
)  # fmt: skip
