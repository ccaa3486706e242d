"""Claims on paired yes/no outcomes: a difference of two 0/1 outcomes is -1, 0 or 1 per unit, never symmetric about
a margin, so the sign-flip test HELD ties and non-inferiority that were false (17% of data sets at 6 units against
2.5%). These rows come from the claims tables that showed it, and a small simulation bounds the false HELD."""

import numpy as np
import pytest
from scipy import stats

from tailmem.stats import paired_proportions as pp
from tailmem.stats.compare import DRAWN, PAIRED_PROPORTIONS, compare
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE

S = shipped()
MARGIN = 0.05


def binary(d, direction, threshold=0.0, **kw):
    return compare(d, direction=direction, threshold=threshold, settings=S, outcome="binary", **kw)


def test_harnesses_each_correct_on_the_same_one_of_eight_questions_do_not_tie():
    """center vs center_bm25: 8 questions, each harness judged correct on 1, the same one: the arms never
    disagree, which says nothing about a tie (the sign-flip interval was [0, 0], HELD)."""
    c = binary(np.zeros(8), "within", MARGIN)
    assert c.verdict == INCONCLUSIVE
    assert c.reason.startswith("uninformative")
    assert c.interval.low < -MARGIN and c.interval.high > MARGIN
    assert c.row()["ci_method"] == PAIRED_PROPORTIONS


def test_coverage_on_six_questions_is_not_shown_non_inferior():
    """LongMemEval's 'CTMC evidence coverage non-inferior to Graph Memory', HELD at +0.25 [0, 0.5] on 6 questions.
    As yes/no per question (three seeds that agree): 2 of 6 questions gained, none lost, which cannot show a 0.05
    margin (0.95^6 = 0.74 of samples lose nothing at a true loss of 0.05). A question's mean over its seeds is read
    through draws (stats.binarize), which here are all alike."""
    questions = np.repeat([f"q{i}" for i in range(6)], 3)
    d = np.repeat([1.0, 1.0, 0.0, 0.0, 0.0, 0.0], 3)
    c = binary(d, "greater", -MARGIN, groups=questions, clustered=True)
    assert compare(d, questions, direction="greater", threshold=-MARGIN, settings=S, clustered=True).verdict == HELD
    assert c.verdict == INCONCLUSIVE and c.interval.low < -MARGIN
    assert c.row()["ci_method"] == DRAWN and c.row()["n_units"] == 6
    assert c.against("greater", -MARGIN).verdict == INCONCLUSIVE
    one_seed = binary(d[::3], "greater", -MARGIN, groups=questions[::3], clustered=True)
    assert one_seed.verdict == INCONCLUSIVE and one_seed.row()["ci_method"] == PAIRED_PROPORTIONS


def test_questions_whose_seeds_disagree_are_drawn_to_yes_no_not_sign_flipped():
    """A question right in one of its two seeds has the mean 0.5, which the sign flips read as symmetric; it is
    drawn to yes or no with chance 0.5 (stats.binarize) and read by paired proportions like the rest."""
    questions = np.repeat([f"q{i}" for i in range(6)], 2)
    d = np.array([1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0], dtype=float)
    c = binary(d, "greater", -MARGIN, groups=questions, clustered=True)
    assert c.row()["ci_method"] == DRAWN and c.verdict == INCONCLUSIVE and c.row()["estimate"] == 0.25


@pytest.mark.parametrize(
    ("direction", "threshold", "truth"),
    [("within", MARGIN, 0.25), ("greater", -MARGIN, -0.25), ("within", MARGIN, MARGIN), ("greater", 0.0, 0.0)],
)
def test_false_held_of_paired_yes_no_outcomes_stays_at_the_level(direction, threshold, truth):
    """300 seeded data sets of 6 units whose truth contradicts the claim (a quarter of units discordant, all one
    way; or on the boundary, half discordant): HELD at most 2.5% plus three Monte Carlo sd (0.027). Sign flips
    HELD the first two in 17% and 18%."""
    rng = np.random.default_rng(11)
    p01 = max(0.0, -truth) if abs(truth) > MARGIN else 0.25
    p10 = p01 + truth
    held = 0
    for _ in range(300):
        d = rng.choice((1.0, -1.0, 0.0), 6, p=(p10, p01, 1.0 - p10 - p01))
        held += binary(d, direction, threshold).verdict == HELD
    assert held / 300 <= 0.025 + 3 * np.sqrt(0.025 * 0.975 / 300)


@pytest.mark.parametrize("n", [6, 8, 12])
@pytest.mark.parametrize("threshold", [-0.25, -0.05, 0.0, 0.05])
def test_exact_size_at_the_boundary_is_at_most_alpha(n, threshold):
    """Summed over every count pair, not drawn: the chance of p <= 0.025 at any truth p10 - p01 = threshold."""
    i, j = (a.ravel() for a in np.meshgrid(np.arange(n + 1), np.arange(n + 1)))
    keep = i + j <= n
    i, j = i[keep], j[keep]
    reject = np.array([pp.p_value(a, b, n, threshold, "greater") <= S.alpha for a, b in zip(i, j)])
    for p01 in np.linspace(max(0.0, -threshold), (1 - threshold) / 2, 57):
        p10 = p01 + threshold
        pmf = stats.multinomial.pmf(np.c_[i, j, n - i - j], n, [p10, p01, max(0.0, 1 - p10 - p01)])
        assert pmf[reject].sum() <= S.alpha + 1e-9


def test_at_zero_all_discordant_one_way_is_mcnemar_exact():
    """Six of six won by a alone: p = 1/64, McNemar's exact (sign) test; the interval then excludes 0."""
    assert pp.p_value(6, 0, 6, 0.0) == pytest.approx(1 / 64)
    c = binary(np.ones(6), "greater")
    assert c.verdict == HELD and c.interval.low > 0


def test_a_large_clear_difference_is_held_and_fast_enough():
    """120 won by a alone, 60 by b alone of 2,000: a +0.03 difference, HELD above 0, and within 0.05 too; not
    within 0.02."""
    d = np.r_[np.ones(120), -np.ones(60), np.zeros(1820)]
    assert binary(d, "greater").verdict == HELD
    assert binary(d, "within", MARGIN).verdict == HELD
    assert binary(d, "within", 0.02).verdict != HELD
    low, high = pp.interval(120, 60, 2000)
    assert 0.0 < low < 0.03 < high < 0.05


def test_interval_inverts_the_test():
    """Each end is where its one-sided test crosses 2.5%."""
    low, high = pp.interval(7, 2, 12)
    assert pp.p_value(7, 2, 12, low - 1e-3, "greater") <= S.alpha < pp.p_value(7, 2, 12, low + 1e-3, "greater")
    assert pp.p_value(7, 2, 12, high + 1e-3, "less") <= S.alpha < pp.p_value(7, 2, 12, high - 1e-3, "less")


@pytest.mark.parametrize("n", [6, 30, 400])
def test_score_grows_with_n10_at_a_fixed_discordant_count(n):
    """What makes the rejection region one cut-off per discordant count (paired_proportions' docstring)."""
    for t in np.linspace(-0.95, 0.95, 39):
        for m in range(0, n + 1, max(1, n // 40)):
            a = np.arange(m + 1)
            assert np.all(np.diff(pp.score(a, m - a, n, t)) >= -1e-12)


def test_a_binary_outcome_rejects_what_is_not_one():
    with pytest.raises(ValueError, match="-1, 0 or 1"):
        binary([2.0, 0.0, 1.0, 0.0, 0.0, 0.0], "greater")
    with pytest.raises(ValueError, match="unweighted"):
        binary(np.ones(6), "greater", weights=np.arange(1.0, 7.0))
    with pytest.raises(ValueError, match="outcome"):
        compare(np.ones(6), direction="greater", settings=S, outcome="yes/no")
