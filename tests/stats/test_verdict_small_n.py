"""Issue 29 finding 1: HELD on two or three units.

A percentile bootstrap over 2-3 units has a handful of distinct resamples, so its "95% interval" excludes zero
whenever the few differences share a sign, and the verdict won over the row's own test (sign p 0.25-0.50). The
rule now: HELD / NOT HELD need at least `stats.min_units` units, an interval that is exact at small n and the
row's test agreeing at the same level. Expected values come from scipy.stats.binomtest and from enumerating the
sign flips by hand (itertools), not from the code under test.
"""

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from tailmem.stats.compare import compare
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD

S = shipped(resamples=2000, seed=0)
ALPHA = (1 - S.confidence) / 2  # one side of the two-sided 95% interval: the level of a one-sided claim


def brute_p(d, threshold: float, alternative: str) -> float:
    """One-sided sign-flip p of mean(d) against `threshold`, every one of the 2^n flips enumerated."""
    x = np.asarray(d, dtype=float) - threshold
    observed = x.sum()
    null = [np.dot(s, x) for s in itertools.product((1.0, -1.0), repeat=x.size)]
    hits = [v >= observed - 1e-12 if alternative == "greater" else v <= observed + 1e-12 for v in null]
    return sum(hits) / len(null)


def subset_means(d) -> np.ndarray:
    """The means of every non-empty subset of d (Hartigan's typical values), by enumeration."""
    d = list(d)
    return np.sort([np.mean(c) for r in range(1, len(d) + 1) for c in itertools.combinations(d, r)])


def test_two_units_never_held():
    """claims_random_walk: 'R_tpl_ln of semantic minus random walk > 0' was HELD on 2 worlds, [2.80, 4.20]."""
    c = compare([2.80, 4.20], direction="greater", settings=S)
    row = c.row()
    assert row["verdict"] == INCONCLUSIVE
    assert row["reason"].startswith("too few units (2")
    assert brute_p([2.80, 4.20], 0.0, "greater") == 0.25  # the best two units can do


def test_three_units_never_held():
    """Each per-family 'gini rises with graph size' was HELD from 3 seeds with sign p 0.25."""
    slopes = [0.12, 0.15, 0.21]
    row = compare(slopes, groups=[0, 1, 2], direction="greater", settings=S).row()
    assert row["verdict"] == INCONCLUSIVE and row["reason"].startswith("too few units (3")
    assert row["n_units"] == 3
    assert sps.binomtest(3, 3, 0.5).pvalue == 0.25  # the sign test the old row printed beside HELD


def test_five_units_of_one_sign_are_not_enough():
    """'Random walk favours log-normal' was HELD on 5 worlds; five negative units give a one-sided exact p of
    1/32 = 0.031, above the one-sided level 0.025 of a 95% interval."""
    r = [-1.2, -0.8, -2.0, -0.5, -1.1]
    row = compare(r, direction="less", settings=S).row()
    assert row["verdict"] == INCONCLUSIVE and row["reason"].startswith("too few units (5")
    assert sps.binomtest(0, 5, 0.5, alternative="less").pvalue == pytest.approx(1 / 32)


def test_the_default_minimum_is_the_smallest_n_at_which_an_exact_one_sided_test_can_pass():
    first = next(n for n in range(1, 30) if sps.binomtest(n, n, 0.5, alternative="greater").pvalue <= ALPHA)
    assert first == 6 and shipped().min_units == first
    # the two-sided 5% sign test reaches its first rejection at the same n
    assert next(n for n in range(1, 30) if sps.binomtest(n, n, 0.5).pvalue < 0.05) == 6


def test_six_units_of_one_sign_can_be_held_with_the_exact_interval():
    d = [0.3, 0.5, 0.2, 0.4, 0.6, 0.1]
    row = compare(d, direction="greater", settings=S).row()
    assert row["verdict"] == HELD and row["reason"] == ""
    # floor(0.025 * 2^6) = 1: the interval runs from the smallest to the largest subset mean, i.e. min to max
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((0.1, 0.6))
    assert row["p_held"] == pytest.approx(brute_p(d, 0.0, "greater")) == pytest.approx(1 / 64)


def test_the_small_n_interval_is_exact_not_a_percentile_bootstrap():
    d = [0.8, -0.3, 1.4, 0.2, 0.9, -0.1, 1.1, 0.5]
    k = int(np.floor(ALPHA * 2 ** len(d)))  # 6 of 256 flips in each tail
    means = subset_means(d)
    row = compare(d, direction="greater", settings=S).row()
    assert row["ci_method"].startswith("exact")
    assert row["ci_low"] == pytest.approx(means[k - 1]) and row["ci_high"] == pytest.approx(means[-k])
    # the interval is the inversion of the row's test: just inside it the test does not reject, just outside it does
    assert brute_p(d, row["ci_low"] - 1e-9, "greater") <= ALPHA < brute_p(d, row["ci_low"] + 1e-9, "greater")
    assert brute_p(d, row["ci_high"] + 1e-9, "less") <= ALPHA < brute_p(d, row["ci_high"] - 1e-9, "less")


def test_an_interval_on_too_few_units_for_its_level_is_unbounded():
    row = compare([0.4, 0.5, 0.7], direction="greater", settings=S).row()
    assert row["ci_low"] == -np.inf and row["ci_high"] == np.inf  # floor(0.025 * 8) = 0 flips per tail


def test_the_verdict_never_overrules_the_row_s_own_test():
    """28 HELD rows of claims_random_walk printed their own test at p > 0.05. Over random small data sets, a row
    that is HELD or NOT HELD has at least min_units units and the one-sided exact test in its direction, computed
    here by enumeration, rejects at the interval's one-sided level."""
    rng = np.random.default_rng(29)
    decided = 0
    for _ in range(150):
        n = int(rng.integers(2, 11))
        d = rng.normal(rng.choice([0.0, 0.5, 1.5]), 1.0, n)
        row = compare(d, direction="greater", settings=S).row()
        if row["verdict"] == HELD:
            assert n >= S.min_units and brute_p(d, 0.0, "greater") <= ALPHA, (n, d, row)
        elif row["verdict"] == NOT_HELD:
            assert n >= S.min_units and brute_p(d, 0.0, "less") <= ALPHA, (n, d, row)
        decided += row["verdict"] != INCONCLUSIVE
    assert decided > 20  # the rule still decides where the data can


@pytest.mark.parametrize("n", [5, 8, 12])
def test_small_n_interval_covers_and_zero_effect_is_rarely_held(n):
    """400 normal data sets per n: the 95% interval holds the planted mean at least at the nominal rate (less 3
    Monte Carlo sd), and with no effect the claim '> 0' is HELD at most at its one-sided level (plus 3 sd)."""
    rng = np.random.default_rng(100 + n)
    reps, delta = 400, 0.4
    covered = held = 0
    for _ in range(reps):
        c = compare(rng.normal(delta, 1.0, n), direction="greater", settings=S)
        covered += c.interval.low <= delta <= c.interval.high
        held += compare(rng.normal(0.0, 1.0, n), direction="greater", settings=S).verdict == HELD
    assert covered / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps)
    assert held / reps <= ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / reps)


@pytest.mark.parametrize(
    "interval, p_held, p_not_held, n, expected, reason",
    [
        (HELD, 0.01, 0.99, 10, HELD, ""),
        (HELD, 0.20, 0.80, 10, INCONCLUSIVE, "test disagrees (p_held 0.2"),  # the interval alone does not decide
        (NOT_HELD, 0.99, 0.04, 10, INCONCLUSIVE, "test disagrees (p_not_held 0.04"),
        (NOT_HELD, 0.99, 0.001, 10, NOT_HELD, ""),
        (HELD, 0.001, 0.99, 3, INCONCLUSIVE, "too few units (3"),
        (INCONCLUSIVE, 0.01, 0.99, 10, INCONCLUSIVE, "interval crosses"),
    ],
)
def test_decide(interval, p_held, p_not_held, n, expected, reason):
    from tailmem.stats.verdict import decide

    verdict, why = decide(interval, p_held, p_not_held, n, S)
    assert verdict == expected and why.startswith(reason)


def test_min_units_is_a_checked_setting():
    from omegaconf import OmegaConf

    from tailmem.errors import ConfigError
    from tailmem.stats.group import settings

    base = {
        "confidence": 0.95,
        "resamples": 2000,
        "seed": 0,
        "margins": {"tokens_rel": 0.01, "gini": 0.05, "fsmem_tie": 0.05},
    }
    assert settings(OmegaConf.create({"stats": base | {"min_units": 3}})).min_units == 3
    with pytest.raises(ConfigError, match="stats.min_units"):
        settings(OmegaConf.create({"stats": base | {"min_units": 0}}))
