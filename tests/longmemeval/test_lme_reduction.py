"""Issue 15 finding 3: LongMemEval's token reduction is measured (the largest CTMC budget whose accuracy and coverage
are non-inferior to Graph Memory's), not set by `longmemeval.primary_ratio`. Synthetic rows with planted effects,
so every expected value is known before the code runs."""

import numpy as np
import pandas as pd
import pytest

from tailmem.haystack.reduction import AFTER_FAILURE, FAILED, PASSED, evaluate, measured
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD
from tailmem.studies.longmemeval import tables as lt

ST = shipped(resamples=1000, seed=0)
MARGIN = 0.05


def planted(
    drops: dict[float, float],
    questions: int = 300,
    seeds=(0, 1, 2),
    cov_drops=None,
    noise: float = 0.05,
    rng_seed: int = 0,
) -> tuple[pd.DataFrame, dict[float, float]]:
    """Rows of Graph Memory and CTMC arms. Graph Memory is right on 60% of questions; CTMC at ratio r spends about r
    of its tokens and loses `drops[r]` of the questions Graph Memory got right (accuracy drop = 0.6 x drops[r]).
    Returns the rows and, per ratio, the true token reduction in percent of these rows (computed here by hand)."""
    rng = np.random.default_rng(rng_seed)
    cov_drops = cov_drops or {}
    recs, truth = [], {}
    sums = {r: [0.0, 0.0] for r in drops}
    for seed in seeds:
        for q in range(questions):
            gm_tok = float(rng.integers(800, 1200))
            gm_right = rng.random() < 0.6
            recs.append(
                {
                    "dataset": "oracle",
                    "arm": "graph_memory",
                    "seed": seed,
                    "qid": f"q{q}",
                    "correct": gm_right,
                    "coverage": 1.0,
                    "prompt_tokens": gm_tok,
                }
            )
            for r, drop in drops.items():
                tok = round(gm_tok * r * (1 + noise * rng.standard_normal()))
                sums[r][0] += tok
                sums[r][1] += gm_tok
                right = gm_right and rng.random() >= drop
                cov = 0.0 if rng.random() < cov_drops.get(r, 0.0) else 1.0
                recs.append(
                    {
                        "dataset": "oracle",
                        "arm": f"ctmc-r{r:g}",
                        "seed": seed,
                        "qid": f"q{q}",
                        "correct": right,
                        "coverage": cov,
                        "prompt_tokens": tok,
                    }
                )
    for r, (c, g) in sums.items():
        truth[r] = 100.0 * (1.0 - c / g)
    return pd.DataFrame(recs), truth


def test_measured_is_the_last_budget_before_the_first_inferior_one():
    # 1.0 and 0.8 lose nothing; 0.6 loses 40% of the right answers (accuracy -0.24, far past the margin)
    rows, truth = planted({1.0: 0.0, 0.8: 0.0, 0.6: 0.4})
    res = evaluate(rows, MARGIN, ST)
    assert [r.arm for r in res] == ["ctmc-r1", "ctmc-r0.8", "ctmc-r0.6"]  # largest budget first
    assert [r.step for r in res] == [PASSED, PASSED, FAILED]
    best = measured(res, "oracle")
    assert best.arm == "ctmc-r0.8"
    i = best.tokens.interval
    assert i.low <= truth[0.8] <= i.high and abs(i.estimate - truth[0.8]) < 1e-9
    assert 18 < i.estimate < 22  # about 20% fewer tokens at 0.8 of Graph Memory's budget
    assert res[2].accuracy.verdict == NOT_HELD  # a planted drop of 0.24 is shown inferior


def test_a_budget_passing_after_a_failure_is_not_reported():
    rows, _ = planted({1.0: 0.0, 0.8: 0.4, 0.6: 0.0})
    res = evaluate(rows, MARGIN, ST)
    assert [r.step for r in res] == [PASSED, FAILED, AFTER_FAILURE]
    assert measured(res, "oracle").arm == "ctmc-r1"


def test_coverage_counts_as_much_as_accuracy():
    rows, _ = planted({1.0: 0.0, 0.7: 0.0}, cov_drops={0.7: 0.3})
    res = evaluate(rows, MARGIN, ST)
    assert res[1].accuracy.verdict == HELD and res[1].coverage.verdict == NOT_HELD
    assert measured(res, "oracle").arm == "ctmc-r1"


def test_no_budget_passes_and_the_claim_says_so():
    rows, _ = planted({1.0: 0.5, 0.5: 0.5})
    res = evaluate(rows, MARGIN, ST)
    assert measured(res, "oracle") is None
    claims = lt.claims(res, MARGIN)
    whole = claims[claims.side == "all parts"].iloc[0]
    assert whole.verdict == NOT_HELD
    assert claims[claims.claim.str.contains("fewer prompt tokens")].verdict.iloc[0] == NOT_HELD


def test_a_drop_shrunk_below_the_noise_turns_held_into_inconclusive():
    # many questions, no drop: non-inferior (HELD); few questions with a drop at the margin: the interval straddles
    big, _ = planted({1.0: 0.0}, questions=400)
    assert evaluate(big, MARGIN, ST)[0].accuracy.verdict == HELD
    # 40 questions: Graph Memory right on q0-q19, CTMC on q0-q13 and q20-q24 (6 lost, 5 gained): a change of -0.025,
    # inside the margin, but 11 discordant pairs of 40 make the interval far wider than the margin
    recs = []
    for q in range(40):
        recs.append(
            {
                "dataset": "s",
                "arm": "graph_memory",
                "seed": 0,
                "qid": q,
                "correct": q < 20,
                "coverage": 1.0,
                "prompt_tokens": 1000,
            }
        )
        recs.append(
            {
                "dataset": "s",
                "arm": "ctmc-r1",
                "seed": 0,
                "qid": q,
                "correct": q < 14 or 20 <= q < 25,
                "coverage": 1.0,
                "prompt_tokens": 990,
            }
        )
    small = evaluate(pd.DataFrame(recs), MARGIN, ST)[0]
    assert small.accuracy.interval.estimate == pytest.approx(-0.025)
    assert small.accuracy.verdict == INCONCLUSIVE and small.step == FAILED


def test_claims_rows_put_the_paper_beside_the_measured_reduction():
    rows, truth = planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.4})
    res = evaluate(rows, MARGIN, ST)
    claims = lt.claims(res, MARGIN)
    assert list(claims.verdict.iloc[:3]) == [HELD, HELD, HELD]
    at_least = claims[claims.claim.str.contains("at least paper")].iloc[0]
    assert at_least.arm == "ctmc-r0.75" and at_least.side == "> 24.48"
    # a planted ~25% reduction with 5% token noise over 900 questions: the interval is narrow around 25
    assert at_least.ci_low < 26 and at_least.ci_high > 24
    assert (claims[~claims.claim.str.startswith("The reader responds")].paper.str.contains("24.48")).all()
    table = lt.reduction(res)
    assert table.loc[table.measured, "arm"].tolist() == ["ctmc-r0.75"]
    assert table.loc[table.measured, "token_reduction_pct"].iloc[0] == pytest.approx(truth[0.75])
    assert (table.token_reduction_pct_paper == 24.48).all()


@pytest.mark.slow
def test_the_measured_reduction_does_not_follow_primary_ratio(tmp_path, data_dir):
    """End to end: two reports differing only in primary_ratio give the same measured reduction."""
    from tailmem.cli import main

    args = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        f"figures_dir={tmp_path}/figures",
        f"data_dir={data_dir}",
        "longmemeval.max_per_type=1",
        "longmemeval.datasets=[oracle]",
        "longmemeval.seeds=[0]",
        "longmemeval.ctmc_ratios=[1.0,0.75,0.5]",
        "stats.resamples=200",
    ]
    assert main(["longmemeval", *args, "longmemeval.dataset=oracle", "seed=0"]) == 0
    tables = tmp_path / "results/tables"
    got = []
    for primary in (0.75, 0.5):
        assert main(["longmemeval_report", *args, f"longmemeval.primary_ratio={primary}"]) == 0
        red = pd.read_csv(tables / "longmemeval_reduction.csv")
        got.append(red[red.measured].arm.tolist())
        claims = pd.read_csv(tables / "claims_longmemeval.csv")
        assert set(claims.verdict) <= {HELD, NOT_HELD, INCONCLUSIVE} and len(claims) == 6
        assert "non-inferior" in (tables / "claims_longmemeval.md").read_text()
    assert got[0] == got[1]
