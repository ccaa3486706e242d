"""Sign and Wilcoxon tests: rejection near alpha at no effect, near 1 at a planted effect."""

import numpy as np
import pytest
from scipy import stats as sps

from tailmem.stats.paired_tests import sign_test, wilcoxon_test

REPEATS, ALPHA = 200, 0.05


def rejection_rate(test, shift: float, seed: int, n: int = 50) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(REPEATS):
        base = rng.normal(0, 1, n)
        a, b = base + shift + rng.normal(0, 1, n), base + rng.normal(0, 1, n)
        rejected += test(a, b).p < ALPHA
    return rejected / REPEATS


@pytest.mark.parametrize("test", [sign_test, wilcoxon_test], ids=["sign", "wilcoxon"])
def test_rejects_at_about_alpha_with_no_effect(test):
    # 200 repeats: the rate's sd at alpha = 0.05 is 0.015; the sign test is conservative (discrete)
    assert rejection_rate(test, 0.0, seed=1) <= ALPHA + 0.04


@pytest.mark.parametrize("test", [sign_test, wilcoxon_test], ids=["sign", "wilcoxon"])
def test_rejects_a_planted_effect(test):
    assert rejection_rate(test, 1.0, seed=2) >= 0.9


def test_sign_test_is_the_exact_binomial_on_discordant_pairs():
    """0/1 outcomes (right or wrong at a step): ties drop out, as in McNemar's exact test."""
    a = np.array([1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1])
    b = np.array([0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0])
    t = sign_test(a, b)
    assert t.n_nonzero == 8
    assert t.p == pytest.approx(sps.binomtest(7, 8, 0.5).pvalue)


def test_wilcoxon_agrees_with_scipy_on_the_differences():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.3, 1, 40), rng.normal(0, 1, 40)
    assert wilcoxon_test(a, b).p == pytest.approx(sps.wilcoxon(a - b).pvalue)
    assert wilcoxon_test(a, b, "greater").p < wilcoxon_test(a, b).p


def test_all_ties_give_no_p_rather_than_an_error():
    assert np.isnan(sign_test([1, 2], [1, 2]).p) and np.isnan(wilcoxon_test(np.zeros(5)).p)
