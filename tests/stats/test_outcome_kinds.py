"""Claims rows on every kind of outcome the claims tables read: bounded shares (coverage, F1) get a test that does
not assume symmetry, and the groups a caller passes (seeds, conversations) are the independent units in every path.
Each case is a row that was HELD on evidence that cannot support it."""

import numpy as np
import pandas as pd
import pytest

from tailmem.haystack.reduction import evaluate, paired_metric
from tailmem.stats import sign_flip
from tailmem.stats.compare import compare
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE
from tailmem.studies.fsmem.claims import ANSWER_COLUMNS, claims

S = shipped()
MARGIN = 0.05


def test_one_fractional_coverage_share_does_not_make_coverage_non_inferior():
    """LongMemEval's coverage row: six questions, five unchanged and one gaining a third of its evidence turns. The
    share sent the row from paired proportions to the sign flips, whose symmetry a share lacks: HELD on
    [0, 0.333] with p = 1/64. Six questions that never lose cannot show a 0.05 margin (0.95^6 = 0.74)."""
    d = [0, 0, 0, 0, 0, 1 / 3]
    c = compare(d, list("abcdef"), None, direction="greater", threshold=-MARGIN, settings=S, clustered=True)
    assert c.verdict == HELD  # the sign flips, as the row read a share before
    b = compare(
        d, list("abcdef"), None, direction="greater", threshold=-MARGIN, settings=S, clustered=True, outcome="bounded"
    )
    assert b.verdict != HELD and b.interval.low < -MARGIN
    with pytest.raises(ValueError, match="bounded"):  # a share is not a yes/no outcome
        compare(d, list("abcdef"), direction="greater", threshold=-MARGIN, settings=S, clustered=True, outcome="binary")


def test_longmemeval_coverage_is_read_as_a_bounded_share():
    questions = [f"q{i}" for i in range(6)]
    gm = pd.DataFrame({"arm": "graph_memory", "qid": questions, "coverage": [0, 0, 0, 0, 0, 0.0], "correct": 1})
    ctmc = gm.assign(arm="ctmc-r0.5", coverage=[0, 0, 0, 0, 0, 1 / 3])
    rows = pd.concat([gm, ctmc]).assign(dataset="oracle", seed=0, prompt_tokens=1000.0)
    assert paired_metric(rows, "ctmc-r0.5", "coverage").outcome == "bounded"
    assert paired_metric(rows, "ctmc-r0.5", "correct").outcome == "binary"
    (arm,) = evaluate(rows, MARGIN, S)
    assert arm.coverage.verdict != HELD


def answers(f1, harness: str, conversation="conv-50") -> pd.DataFrame:
    n = len(f1)
    return pd.DataFrame(
        {
            "study": "harness",
            "benchmark": "locomo",
            "conversation": conversation,
            "variant": "agent_curated",
            "harness": harness,
            "builder": "programmatic",
            "searcher": "programmatic",
            "qid": np.arange(n),
            "question": [f"question {i}?" for i in range(n)],
            "f1": f1,
            "judge_correct": None,
            "search_chars_read": 1000.0,
            "search_dollars": 0.0,
        }
    )[list(ANSWER_COLUMNS)]


def test_identical_f1_on_ten_questions_does_not_tie_the_harnesses():
    """claims_fsmem in the smoke run: 'The harnesses tie (agent_curated)' HELD on [0, 0] over 10 questions whose F1
    is the same under both harnesses. Per-question F1 has mass at 0 and 1; ten zeros say little about a population
    where 5% of questions differ by 1 (0.95^10 = 0.60)."""
    f1 = np.r_[np.zeros(4), np.ones(3), [0.5, 0.25, 0.8]]
    df = claims(pd.concat([answers(f1, "center"), answers(f1, "shell")]), S, MARGIN)
    tie = df[df.claim == "The harnesses tie (agent_curated): center vs shell"].iloc[0]
    assert tie.estimate == 0.0 and tie.verdict == INCONCLUSIVE
    assert compare(np.zeros(10), direction="within", threshold=MARGIN, settings=S, outcome="bounded").verdict != HELD


def test_yes_no_wins_in_one_of_two_conversations_are_not_held():
    """24 judged questions in two conversations, 9 won by arm a, all in the first: paired proportions over the
    questions (the groups ignored) said HELD. The conversations are the independent units, and two are too few."""
    d = np.r_[np.ones(9), np.zeros(15)]
    conv = np.repeat(["conv-1", "conv-2"], 12)
    flat = compare(d, direction="greater", settings=S, outcome="binary")
    assert flat.verdict == HELD
    c = compare(d, conv, direction="greater", settings=S, outcome="binary")
    assert c.verdict == INCONCLUSIVE and c.row()["n_units"] == 2 and c.reason.startswith("too few units")


def test_twelve_units_in_two_seeds_are_not_decided_on_the_units():
    """12 units nested in 2 seeds got exact sign flips over the units, the seed level ignored: p = 1/4096, HELD."""
    d = np.random.default_rng(4).normal(1.0, 0.3, 12)
    seeds = np.repeat([0, 1], 6)
    c = compare(d, seeds, direction="greater", settings=S)
    assert c.verdict == INCONCLUSIVE and c.row()["n_units"] == 2
    assert c.p_held > 0.025


def test_units_in_enough_seeds_are_tested_on_the_seed_means():
    rng = np.random.default_rng(5)
    seeds = np.repeat(np.arange(8), 3)
    d = rng.normal(0.3, 1.0, 24) + np.repeat(rng.normal(0, 0.5, 8), 3)
    c = compare(d, seeds, direction="greater", settings=S)
    means = pd.Series(d).groupby(seeds).mean().to_numpy()
    assert c.row()["n_units"] == 8 == c.row()["n_seeds"]
    assert c.p_held == pytest.approx(sign_flip.p_value(means, np.full(8, 3.0), 0.0, "greater"))


def test_one_seed_keeps_its_units_independent():
    """One seed (one chain, one conversation): the row is read about that seed's units, as before."""
    d = np.r_[np.ones(9), np.zeros(15)]
    c = compare(d, np.zeros(24), direction="greater", settings=S, outcome="binary")
    assert c.verdict == HELD and c.row()["n_units"] == 24 and c.row()["n_seeds"] == 1
