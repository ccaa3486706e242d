"""Agreement statistics across judges, checked against libraries we did not write: scikit-learn's Cohen's kappa and
the `krippendorff` package's alpha on the same labels, and a case small enough to work by hand."""

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from tailmem.judges.agreement import agreement, cohen_kappa, krippendorff_alpha


def test_hand_checked_case():
    # a = 1 1 0 0, b = 1 0 0 0: p_o = 3/4; rates of 1s 1/2 and 1/4, so p_e = 1/8 + 3/8 = 1/2 and kappa = 1/2.
    # alpha (nominal, 2 judges, 4 items): 3 ones and 5 zeros among n = 8 labels; one disagreeing item gives 2
    # off-diagonal coincidences, so alpha = 1 - (n - 1) * 2 / (2 * 3 * 5) = 1 - 14/30 = 8/15.
    a, b = [1, 1, 0, 0], [1, 0, 0, 0]
    assert agreement(a, b) == 0.75
    assert cohen_kappa(a, b) == pytest.approx(0.5)
    assert krippendorff_alpha([a, b]) == pytest.approx(8 / 15)


@pytest.mark.parametrize("seed", range(6))
def test_kappa_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, 40)
    b = np.where(rng.random(40) < 0.7, a, 1 - a)
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b))


def test_alpha_matches_krippendorff_with_missing_labels():
    import krippendorff

    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 30).astype(float)
    labels = np.array([np.where(rng.random(30) < p, truth, 1 - truth) for p in (0.9, 0.8, 0.6)])
    labels[1, [2, 7]] = np.nan  # unreadable replies
    assert krippendorff_alpha(labels) == pytest.approx(
        krippendorff.alpha(reliability_data=labels, level_of_measurement="nominal")
    )
    # two judges: alpha is close to (not equal to) kappa; both say the same thing about a good pair
    assert abs(krippendorff_alpha(labels[[0, 2]]) - cohen_kappa(labels[0], labels[2])) < 0.05


def test_unreadable_labels_leave_the_pair():
    assert agreement([1, np.nan, 0], [1, 1, 1]) == 0.5
    assert cohen_kappa([1, np.nan, 0, 1], [1, 0, 0, 1]) == pytest.approx(cohen_kappa_score([1, 0, 1], [1, 0, 1]))


def test_no_spread_is_nan_not_perfect():
    """Every label 1 under both judges: agreement is 1 but chance explains all of it; kappa and alpha are 0/0."""
    assert agreement([1, 1, 1], [1, 1, 1]) == 1.0
    assert np.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert np.isnan(krippendorff_alpha([[1, 1, 1], [1, 1, 1]]))
