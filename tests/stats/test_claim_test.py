"""Issue 29 finding 2: the row's test is not the claim's test.

A claim of no difference or non-inferiority was decided by the interval against a margin, while the same row printed
the sign and Wilcoxon p of the difference about zero (a test of another hypothesis: HELD beside p = 0.80). The row's
test is now the claim's: one-sided against the threshold for "greater" / "less", two one-sided tests against the
margin (TOST) for "within". References: sign flips enumerated here (itertools) and scipy's own tests.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tailmem.stats.compare import COLUMNS, compare
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE

S = shipped(resamples=4000, seed=0)
ALPHA = 0.025
MARGIN = 0.05


def brute_p(d, threshold: float, alternative: str) -> float:
    x = np.asarray(d, dtype=float) - threshold
    observed = x.sum()
    null = np.array([np.dot(s, x) for s in itertools.product((1.0, -1.0), repeat=x.size)])
    return float(np.mean(null >= observed - 1e-12) if alternative == "greater" else np.mean(null <= observed + 1e-12))


def test_rows_print_the_claim_s_test_not_a_two_sided_p_about_zero():
    assert "sign_p" not in COLUMNS and "wilcoxon_p" not in COLUMNS
    assert {"p_held", "p_not_held", "reason", "ci_method"} <= set(COLUMNS)
    assert list(compare(np.arange(8.0), direction="greater", settings=S).row()) == list(COLUMNS)


def test_a_noninferiority_row_prints_the_test_against_its_margin():
    """claims_fsmem 'agent_curated no better than verbatim': +0.010 [-0.002, +0.023] under the margin 0.05, HELD
    beside a sign p about zero of 0.80. Here 90 questions with a mean difference of 0.01: HELD, and the printed p
    is the one-sided test of 'mean < 0.05', small; the two-sided tests about zero say nothing of the claim."""
    rng = np.random.default_rng(2)
    d = 0.01 + rng.normal(0, 0.06, 90)
    d -= d.mean() - 0.01
    c = compare(d, direction="less", threshold=MARGIN, settings=S)
    assert c.verdict == HELD and c.interval.high < MARGIN
    assert c.p_held <= ALPHA
    assert sps.ttest_1samp(d, MARGIN, alternative="less").pvalue < 0.001  # scipy's test of the same hypothesis
    assert sps.wilcoxon(d).pvalue > 0.05  # the old column: about zero, two-sided, not the claim


def test_one_sided_tests_are_shifted_by_their_threshold():
    d = [0.11, 0.25, 0.18, 0.3, 0.22, 0.14, 0.27, 0.2, 0.16, 0.24]
    about_zero = compare(d, direction="greater", threshold=0.0, settings=S)
    about_020 = compare(d, direction="greater", threshold=0.2, settings=S)
    assert about_zero.p_held == pytest.approx(brute_p(d, 0.0, "greater")) == pytest.approx(2**-10)
    assert about_020.p_held == pytest.approx(brute_p(d, 0.2, "greater"))
    assert about_020.p_not_held == pytest.approx(brute_p(d, 0.2, "less"))
    assert about_020.verdict == INCONCLUSIVE  # mean 0.207 is not shown above 0.2
    less = compare(d, direction="less", threshold=0.35, settings=S)
    assert less.p_held == pytest.approx(brute_p(d, 0.35, "less")) and less.verdict == HELD


def test_an_equivalence_row_prints_the_larger_of_its_two_one_sided_tests():
    d = [0.01, -0.02, 0.03, 0.0, -0.01, 0.02, 0.015, -0.005, 0.01, -0.015]
    c = compare(d, direction="within", threshold=MARGIN, settings=S)
    tost = max(brute_p(d, -MARGIN, "greater"), brute_p(d, MARGIN, "less"))
    assert c.p_held == pytest.approx(tost) and c.verdict == HELD
    outside = min(brute_p(d, MARGIN, "greater"), brute_p(d, -MARGIN, "less"))
    assert c.p_not_held == pytest.approx(outside)


def test_an_equivalence_claim_near_its_margin_fails_its_two_one_sided_tests():
    """Mean 0.04 against a margin of 0.05 with sd 0.05 over 40 units: the upper one-sided test cannot reject."""
    rng = np.random.default_rng(5)
    d = rng.normal(0, 0.05, 40)
    d += 0.04 - d.mean()
    c = compare(d, direction="within", threshold=MARGIN, settings=S)
    assert c.verdict == INCONCLUSIVE and c.p_held > ALPHA
    assert sps.ttest_1samp(d, MARGIN, alternative="less").pvalue > ALPHA  # scipy agrees


def test_large_n_test_agrees_with_scipy_permutation_test():
    """Above the exact range the flips are drawn at random; the p matches scipy.stats.permutation_test's to Monte
    Carlo error."""
    rng = np.random.default_rng(7)
    d = rng.normal(0.08, 1.0, 200)
    c = compare(d, direction="greater", threshold=0.0, settings=S)
    ref = sps.permutation_test(
        (d,), np.mean, permutation_type="samples", alternative="greater", n_resamples=20_000, rng=1
    ).pvalue
    assert c.p_held == pytest.approx(ref, abs=4 * np.sqrt(ref * (1 - ref) / S.resamples) + 1e-3)


def test_weighted_units_are_tested_on_the_weighted_mean():
    """States as units, steps as weights: the test is of the mean over steps, so it matches enumerating the flips
    of w * (d - t)."""
    d = np.array([0.4, -0.2, 0.1, 0.3, -0.1, 0.2, 0.5, 0.0])
    w = np.array([1, 5, 2, 3, 8, 1, 2, 4], dtype=float)
    c = compare(d, weights=w, direction="greater", threshold=0.0, settings=S)
    x = w * d
    null = np.array([np.dot(s, x) for s in itertools.product((1.0, -1.0), repeat=x.size)])
    assert c.p_held == pytest.approx(np.mean(null >= x.sum() - 1e-12))
    assert c.interval.estimate == pytest.approx(np.sum(w * d) / w.sum())


def test_fsmem_noninferiority_rows_print_the_margin_test():
    from tailmem.studies.fsmem.claims import ANSWER_COLUMNS, claims

    rng = np.random.default_rng(4)
    base = np.clip(0.5 + rng.normal(0, 0.2, 150), 0, 1)

    def arm(f1, variant):
        n = f1.size
        return pd.DataFrame(
            {
                "study": "main",
                "benchmark": "locomo",
                "conversation": "c0",  # one conversation: its questions are the units
                "variant": variant,
                "harness": "center",
                "builder": "programmatic",
                "searcher": "programmatic",
                "qid": np.arange(n),
                "question": [f"q{i}?" for i in range(n)],
                "f1": f1,
                "judge_correct": [None] * n,
                "search_chars_read": 1000.0,
                "search_dollars": 0.0,
            }
        )[list(ANSWER_COLUMNS)]

    curated = base.copy()  # the same answers but on 4 of 150 questions, 2 better and 2 worse by 0.4
    curated[:4] += [0.4, 0.4, -0.4, -0.4]
    df = claims(pd.concat([arm(base, "verbatim"), arm(curated, "agent_curated")]), S, MARGIN)
    r = df[df.claim == "Organization does not buy better answers: agent_curated no better than verbatim"].iloc[0]
    assert r.verdict == HELD and r.p_held <= ALPHA
    assert sps.ttest_1samp(curated - base, MARGIN, alternative="less").pvalue <= ALPHA
