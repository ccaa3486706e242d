"""claims_fsmem on synthetic per-question answers where the truth is planted: a clear difference is HELD, the
reversed one NOT HELD, one far below the noise INCONCLUSIVE; identical harnesses tie, a large gap does not."""

import sys

import numpy as np
import pandas as pd
import pytest

from tailmem.errors import DataError
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD
from tailmem.studies.fsmem.claims import ANSWER_COLUMNS, claims, paired, select

S = shipped(resamples=1000, seed=0)
MARGIN = 0.05
CONVS = ("conv-a",)  # one conversation: its questions are the units (several: the conversations are)


def arm(
    f1,
    *,
    study="main",
    variant="closed_book",
    harness="center",
    builder="programmatic",
    searcher="programmatic",
    benchmark="locomo",
    chars=None,
    dollars=None,
    judge=None,
) -> pd.DataFrame:
    """One arm's answers: question i of conversation CONVS[i % len(CONVS)], with per-question F1 `f1` (clipped
    to [0, 1], where F1 lies)."""
    f1 = np.clip(np.asarray(f1, dtype=float), 0.0, 1.0)
    n = f1.size
    return pd.DataFrame(
        {
            "study": study,
            "benchmark": benchmark,
            "conversation": [CONVS[i % len(CONVS)] for i in range(n)],
            "variant": variant,
            "harness": harness,
            "builder": builder,
            "searcher": searcher,
            "qid": np.arange(n),
            "question": [f"question {i}?" for i in range(n)],
            "f1": f1,
            "judge_correct": [None] * n if judge is None else judge,
            "search_chars_read": np.full(n, 1000.0) if chars is None else chars,
            "search_dollars": np.zeros(n) if dollars is None else dollars,
        }
    )[list(ANSWER_COLUMNS)]


def noise(n=90, sd=0.2, seed=1):
    return np.random.default_rng(seed).normal(0, sd, n)


def row(df, claim_start, benchmark="locomo"):
    at = df[df.benchmark == benchmark]
    hit = at[at.claim.str.startswith(claim_start) & ~at.claim.str.contains("token F1")]  # the judged/main row
    assert len(hit) == 1, (claim_start, list(df.claim))
    return hit.iloc[0]


def beats_closed_book(shift, sd=0.2) -> pd.Series:
    base = 0.4 + noise(sd=sd, seed=1)
    answers = pd.concat([arm(base), arm(base + shift + noise(sd=sd, seed=2), variant="agent_curated")])
    return row(claims(answers, S, MARGIN), "A file-based store (agent_curated)")


def test_planted_difference_held_reversed_not_held_tiny_inconclusive():
    held = beats_closed_book(0.3)
    assert held.verdict == HELD and held.unit == "question" and held.side == "> 0"
    assert held.ci_low > 0 and held.estimate == pytest.approx(0.3, abs=0.08)
    assert held.n_units == 90 and held.n_seeds == 1
    assert held.sign_p_1s < 0.001 and "closed_book" in held.evidence
    assert beats_closed_book(-0.3).verdict == NOT_HELD
    assert beats_closed_book(0.002).verdict == INCONCLUSIVE


def test_questions_of_three_conversations_rest_on_three_units(monkeypatch):
    """The conversations are the independent units (a conversation's questions share its store): 90 questions in
    three of them are too few units, however clear the difference on the questions."""
    monkeypatch.setattr(sys.modules[__name__], "CONVS", ("conv-a", "conv-b", "conv-c"))
    r = beats_closed_book(0.3)
    assert r.n_units == 3 and r.n_seeds == 3
    assert r.verdict == INCONCLUSIVE and r.reason.startswith("too few units")


def test_shrinking_the_effect_below_the_noise_flips_held_to_inconclusive():
    verdicts = [beats_closed_book(shift, sd=0.3).verdict for shift in (0.4, 0.2, 0.01)]
    assert verdicts[0] == HELD and verdicts[-1] == INCONCLUSIVE


def harness_answers(gaps: dict[str, float], n: int = 150) -> pd.DataFrame:
    """Harnesses answering the same `n` questions; a tie within 0.05 on F1 that never differs needs about 100 of
    them (a bounded score's row merges draws: docs/stats.md)."""
    base = np.clip(0.5 + noise(n=n, sd=0.25, seed=3), 0, 1)
    return pd.concat([arm(base + gap, study="harness", variant="agent_curated", harness=h) for h, gap in gaps.items()])


def test_identical_harnesses_tie_and_a_large_gap_does_not():
    tied = claims(harness_answers({"center": 0.0, "center_bm25": 0.0, "shell": 0.0}), S, MARGIN)
    pairs = tied[tied.claim.str.contains(" vs ")]
    assert len(pairs) == 3 and set(pairs.verdict) == {HELD} and set(pairs.side) == {"|d| < 0.05"}
    few = claims(harness_answers({"center": 0.0, "shell": 0.0}, n=90), S, MARGIN)
    assert few.iloc[0].verdict == INCONCLUSIVE and few.iloc[0].reason.startswith("uninformative")
    assert tied.iloc[-1].side == "all parts" and tied.iloc[-1].verdict == HELD
    gap = claims(harness_answers({"center": 0.0, "center_bm25": 0.0, "shell": 0.3}), S, MARGIN)
    by_pair = dict(zip(gap.claim, gap.verdict))
    assert by_pair["The harnesses tie (agent_curated): center vs center_bm25"] == HELD
    assert by_pair["The harnesses tie (agent_curated): center vs shell"] == NOT_HELD
    assert gap.iloc[-1].verdict == NOT_HELD  # one failed pair fails the tie
    assert "86.1-86.7%" in gap.iloc[0].paper  # paper 2's Table 9 beside ours


def test_organization_rows_are_non_superiority_and_search_economy_uses_the_cost_proxy():
    base = 0.5 + noise(n=150, seed=4)
    answers = pd.concat(
        [
            arm(base, variant="verbatim", chars=np.full(150, 5000.0)),
            arm(
                base + noise(n=150, sd=0.01, seed=5),
                variant="agent_curated",
                chars=np.full(150, 1000.0) + noise(n=150, sd=50, seed=6),
            ),
            arm(base + 0.3, variant="foldered"),
        ]
    )
    df = claims(answers, S, MARGIN)
    curated = row(df, "Organization does not buy better answers: agent_curated no better than verbatim")
    assert curated.verdict == HELD and curated.side == "< 0.05" and np.isnan(curated.sign_p_1s)
    assert "37.5% vs verbatim 78.1%" in curated.paper  # D.1's PersonaMem 32k numbers
    assert row(df, "Organization does not buy better answers: foldered").verdict == NOT_HELD
    cheaper = row(df, "Organization buys search economy: agent_curated")
    assert cheaper.verdict == HELD and cheaper.metric == "search_chars_read" and "cents/q" in cheaper.paper
    missing = row(df, "Organization buys search economy: reorganized_preserve")  # not run
    assert missing.verdict == INCONCLUSIVE and "no answers in this run" in missing.evidence
    assert row(df, "A file-based store (verbatim)").verdict == INCONCLUSIVE  # no closed_book arm


def test_pairs_only_questions_both_arms_answered():
    a, b = arm(np.linspace(0, 1, 30)), arm(np.linspace(0, 1, 30) + 0.1, variant="verbatim").iloc[:20]
    p = paired(b, a, "f1")
    assert p.n == 20 and (p.answered_a, p.answered_b) == (20, 30)
    assert p.mean_a - p.mean_b == pytest.approx(0.1)
    bad = b.assign(question="another question?")
    with pytest.raises(DataError, match="different questions"):
        paired(bad, a, "f1")


def test_judge_verdicts_replace_f1_when_every_question_is_judged():
    judged = arm(np.zeros(30), judge=[1.0] * 30, variant="agent_curated")
    closed = arm(np.zeros(30), judge=[0.0] * 30)
    r = row(claims(pd.concat([closed, judged]), S, MARGIN), "A file-based store (agent_curated)")
    assert r.metric == "judge_correct" and r.estimate == 1.0
    half = arm(np.zeros(30), judge=[1.0] * 15 + [None] * 15, variant="agent_curated")
    assert row(claims(pd.concat([closed, half]), S, MARGIN), "A file-based store (agent_curated)").metric == "f1"


def test_one_sided_sign_test_reproduces_paper_2_d1():
    """9 gains, 3 losses, 20 ties: paper 2 reports one-sided p = 0.073 for exactly this split."""
    before = np.full(32, 0.5)
    after = 0.5 + 0.5 * np.r_[np.ones(9), np.zeros(20), -np.ones(3)]
    answers = pd.concat([arm(before), arm(after, variant="agent_curated")])
    r = row(claims(answers, S, MARGIN), "A file-based store (agent_curated)")
    assert r.sign_p_1s == pytest.approx(0.073, abs=0.0005)


def test_strength_ladder_steps_up_in_order_and_one_searcher_is_inconclusive():
    base = 0.4 + noise(seed=7)
    ladder = {"gpt-5.4-nano": 0.0, "gpt-5.4-mini": 0.2, "gpt-5.4": 0.4}
    answers = pd.concat(
        [
            arm(base + g, study="strength", variant="agent_curated", builder="gpt-5.4-mini", searcher=s)
            for s, g in ladder.items()
        ]
    )
    df = claims(answers, S, MARGIN)
    assert list(df.arm) == ["gpt-5.4-mini", "gpt-5.4"] and list(df.baseline) == ["gpt-5.4-nano", "gpt-5.4-mini"]
    assert set(df.verdict) == {HELD} and "62%" in df.iloc[0].paper and "71%" in df.iloc[0].paper
    flipped = claims(answers, S, MARGIN, searcher_ladder=["gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano"])
    assert set(flipped.verdict) == {NOT_HELD}
    one = claims(select(answers, searcher="gpt-5.4"), S, MARGIN)
    assert len(one) == 1 and one.iloc[0].verdict == INCONCLUSIVE and "one searcher" in one.iloc[0].evidence


def test_an_answers_frame_without_its_columns_is_refused():
    with pytest.raises(DataError, match="missing columns"):
        claims(pd.DataFrame({"f1": [1.0]}), S, MARGIN)


def test_judged_harnesses_that_never_disagree_on_eight_questions_do_not_tie():
    """The harnesses tie (verbatim): 8 questions, each harness judged correct on the same 1. Both judged, so the
    verdicts are paired yes/no outcomes: arms that never disagree say nothing about a tie (sign flips HELD it)."""
    judge = [1.0] + [0.0] * 7
    answers = pd.concat(
        [
            arm(np.zeros(8), study="harness", variant="verbatim", harness=h, judge=judge)
            for h in ("center", "center_bm25")
        ]
    )
    r = row(claims(answers, S, MARGIN), "The harnesses tie (verbatim): center vs center_bm25")
    assert r.metric == "judge_correct" and r.ci_method == "paired proportions (exact score)"
    assert r.verdict == INCONCLUSIVE and r.reason.startswith("uninformative")


def test_a_judged_store_claim_keeps_the_benchmark_s_f1_row_beside_it():
    """Finding (default_model, 8 LoCoMo questions): the 1.5B judge marked verbatim answers with F1 0.44-0.67 wrong,
    so the judged row had 1 discordant question and could not be decided; LoCoMo's own scorer is token F1, so the
    store-vs-closed-book claim is also scored by F1 on the same questions, labelled so."""
    f1_store, f1_closed = np.full(12, 0.6), np.zeros(12)
    judged = arm(f1_store, judge=[1.0] + [0.0] * 11, variant="verbatim")
    closed = arm(f1_closed, judge=[0.0] * 12)
    out = claims(pd.concat([closed, judged]), S, MARGIN)
    rows = out[out.claim.str.startswith("A file-based store (verbatim)")]
    assert list(rows.metric) == ["judge_correct", "f1"]
    assert rows.iloc[0].verdict == INCONCLUSIVE and rows.iloc[1].verdict == HELD
    assert "token F1" in rows.iloc[1].claim
    unjudged = claims(pd.concat([arm(f1_closed), arm(f1_store, variant="verbatim")]), S, MARGIN)
    same = unjudged[unjudged.claim.str.startswith("A file-based store (verbatim)")]
    assert list(same.metric) == ["f1", "f1"]  # the same rows under any judge, so judge_sensitivity lines them up
