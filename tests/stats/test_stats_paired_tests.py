"""The sign test (paper 2's) and the sign-flip test of the mean (every row's): rejection near alpha at no effect,
near 1 at a planted effect; the exact ones against scipy and against enumeration."""

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from tailmem.stats import sign_flip
from tailmem.stats.paired_tests import sign_test

REPEATS, ALPHA = 200, 0.05


def sign_p(a, b):
    return sign_test(a, b).p


def flip_p(a, b):  # two-sided from the two one-sided, as the sign test's
    d = np.asarray(a) - np.asarray(b)
    return min(1.0, 2 * min(sign_flip.p_value(d, alternative="greater"), sign_flip.p_value(d, alternative="less")))


def rejection_rate(test, shift: float, seed: int, n: int = 50) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(REPEATS):
        base = rng.normal(0, 1, n)
        a, b = base + shift + rng.normal(0, 1, n), base + rng.normal(0, 1, n)
        rejected += test(a, b) < ALPHA
    return rejected / REPEATS


@pytest.mark.parametrize("test", [sign_p, flip_p], ids=["sign", "sign_flip"])
def test_rejects_at_about_alpha_with_no_effect(test):
    # 200 repeats: the rate's sd at alpha = 0.05 is 0.015; the sign test is conservative (discrete)
    assert rejection_rate(test, 0.0, seed=1) <= ALPHA + 0.04


@pytest.mark.parametrize("test", [sign_p, flip_p], ids=["sign", "sign_flip"])
def test_rejects_a_planted_effect(test):
    assert rejection_rate(test, 1.0, seed=2) >= 0.9


def test_sign_test_is_the_exact_binomial_on_discordant_pairs():
    """0/1 outcomes (right or wrong at a step): ties drop out, as in McNemar's exact test."""
    a = np.array([1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1])
    b = np.array([0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0])
    t = sign_test(a, b)
    assert t.n_nonzero == 8
    assert t.p == pytest.approx(sps.binomtest(7, 8, 0.5).pvalue)


def test_exact_sign_flip_p_matches_scipy_permutation_test():
    d = np.random.default_rng(3).normal(0.3, 1, 12)
    for alternative in ("greater", "less"):
        ref = sps.permutation_test(
            (d,), np.mean, permutation_type="samples", alternative=alternative, n_resamples=np.inf
        ).pvalue
        assert sign_flip.p_value(d, alternative=alternative) == pytest.approx(ref)


def test_exact_interval_is_the_order_statistics_of_the_subset_means():
    d = [0.5, -0.2, 0.9, 0.1, 0.4, 1.2, -0.6]  # 128 flips: floor(0.05 * 128) = 6 in each tail at 90%
    means = np.sort([np.mean(c) for r in range(1, 8) for c in itertools.combinations(d, r)])
    assert sign_flip.interval(d, confidence=0.9) == pytest.approx((means[5], means[-6]))


def test_zero_weight_units_drop_out_and_ties_give_no_p_below_one():
    assert sign_flip.p_value([0.3, 0.5, 9.0], [1, 1, 0]) == pytest.approx(0.25)
    assert sign_flip.p_value(np.zeros(6)) == 1.0 and np.isnan(sign_flip.p_value([]))
    assert np.isnan(sign_test([1, 2], [1, 2]).p)
