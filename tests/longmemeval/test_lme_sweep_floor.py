"""Issue 29 finding 4: a claim that passes at every tested level reports the sweep's floor.

Every CTMC budget from 1.0 down to 0.5 passed non-inferiority (accuracy change +0.004 at each), so the "measured"
reduction was simply the smallest budget the sweep tried, and the programmatic reader's accuracy did not respond to
its context, which made "accuracy maintained" vacuous. Now: a sweep that never fails reports "at least" its last
level and says so; non-inferiority of an accuracy that differs at no level is "uninformative", not HELD; and a
context check (accuracy with the gold evidence removed must be lower) says whether the reader uses its context.
"""

import numpy as np
import pandas as pd
import pytest

from tailmem.haystack import reduction
from tailmem.haystack.reduction import evaluate
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE
from tailmem.studies.longmemeval import tables as lt

ST = shipped(resamples=1000, seed=0)
MARGIN = 0.05


def planted(drops: dict[float, float], reader_responds: bool | None, questions: int = 200, seeds=(0, 1, 2)):
    """Graph Memory right on 60% of questions; CTMC at ratio r loses drops[r] of those. With `reader_responds`
    set, Graph Memory is also answered with the gold evidence removed: wrong everywhere when the reader responds to
    its context, exactly as with the evidence when it does not."""
    from tailmem.haystack.arms import NO_EVIDENCE

    rng = np.random.default_rng(0)
    recs = []
    for seed in seeds:
        for q in range(questions):
            right = bool(rng.random() < 0.6)
            common = {"dataset": "oracle", "seed": seed, "qid": f"q{q}", "coverage": 1.0, "abstention": False}
            recs.append(common | {"arm": "graph_memory", "correct": right, "prompt_tokens": 1000.0})
            for r, drop in drops.items():
                recs.append(
                    common
                    | {"arm": f"ctmc-r{r:g}", "correct": right and rng.random() >= drop, "prompt_tokens": 1000.0 * r}
                )
            if reader_responds is not None:
                recs.append(
                    common
                    | {
                        "arm": NO_EVIDENCE,
                        "correct": False if reader_responds else right,
                        "coverage": np.nan,
                        "prompt_tokens": 900.0,
                    }
                )
    return pd.DataFrame(recs)


def claims_of(rows: pd.DataFrame) -> pd.DataFrame:
    res = evaluate(rows, MARGIN, ST)
    return lt.claims(res, MARGIN, {"oracle": reduction.context_response(rows[rows.dataset == "oracle"], ST)})


def claim(table: pd.DataFrame, start: str) -> pd.Series:
    hit = table[table.claim.str.startswith(start)]
    assert len(hit) == 1, (start, list(table.claim))
    return hit.iloc[0]


def test_a_sweep_that_passes_at_every_level_reports_at_least_its_last_level():
    rows = planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.0}, reader_responds=True)
    res = evaluate(rows, MARGIN, ST)
    assert not reduction.reached_failure(res, "oracle")
    table = lt.reduction(res)
    assert not table.reached_failure.any() and table.loc[table.measured, "arm"].tolist() == ["ctmc-r0.5"]
    fewer = claim(lt.claims(res, MARGIN), "CTMC spends fewer prompt tokens")
    assert "at least 50.00%" in fewer.evidence and "did not reach a failing level" in fewer.evidence
    assert "the sweep's last level" in fewer.evidence


def test_a_sweep_that_reaches_a_failing_level_says_which():
    rows = planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.4}, reader_responds=True)
    res = evaluate(rows, MARGIN, ST)
    assert reduction.reached_failure(res, "oracle") and lt.reduction(res).reached_failure.all()
    fewer = claim(lt.claims(res, MARGIN), "CTMC spends fewer prompt tokens")
    assert "at least" not in fewer.evidence and "first failing level ctmc-r0.5" in fewer.evidence


def test_noninferiority_of_an_accuracy_that_differs_at_no_level_is_uninformative():
    """No context check ran: nothing shows the reader would notice lost evidence."""
    table = claims_of(planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.0}, reader_responds=None))
    acc = claim(table, "CTMC accuracy non-inferior")
    assert acc.verdict == INCONCLUSIVE and acc.reason.startswith("uninformative")
    assert claim(table, "CTMC evidence coverage non-inferior").verdict == HELD  # coverage counts the evidence itself
    assert claim(table, "Paper 1: CTMC cuts prompt tokens").verdict == INCONCLUSIVE
    check = claim(table, "The reader responds to context")
    assert check.verdict == INCONCLUSIVE and "not run" in check.reason


def test_a_reader_that_ignores_its_context_is_flagged():
    table = claims_of(planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.0}, reader_responds=False))
    check = claim(table, "The reader responds to context")
    assert check.verdict != HELD and "does not respond" in check.reason
    acc = claim(table, "CTMC accuracy non-inferior")
    assert acc.verdict == INCONCLUSIVE and "uninformative" in acc.reason and "does not respond" in acc.reason


def test_a_flat_sweep_stays_uninformative_for_a_reader_that_responds_to_context():
    """Removing all the evidence is a blunter cut than any budget: the check passing does not make a sweep that
    never moved the accuracy show where accuracy is lost; the reason says what the check found."""
    table = claims_of(planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.0}, reader_responds=True))
    check = claim(table, "The reader responds to context")
    assert check.verdict == HELD and check.estimate == pytest.approx(0.6, abs=0.05) and check.reason == ""
    acc = claim(table, "CTMC accuracy non-inferior")
    assert acc.verdict == INCONCLUSIVE and "uninformative" in acc.reason and "does respond" in acc.reason


def test_an_accuracy_that_moves_at_some_budget_is_informative():
    table = claims_of(planted({1.0: 0.0, 0.75: 0.0, 0.5: 0.4}, reader_responds=True))
    acc = claim(table, "CTMC accuracy non-inferior")
    assert acc.verdict == HELD and acc.arm == "ctmc-r0.75" and acc.reason == ""
    assert claim(table, "Paper 1: CTMC cuts prompt tokens").verdict == HELD


def test_the_context_check_removes_every_answer_bearing_turn_and_the_programmatic_reader_notices(data_dir, repo_root):
    from omegaconf import OmegaConf

    from tailmem.data.longmemeval import load
    from tailmem.haystack.answer import ProgrammaticAnswerer
    from tailmem.haystack.arms import make_arms
    from tailmem.memory.tokens import TokenCounter
    from tailmem.studies.longmemeval.evaluate import build_prompts, evaluate_programmatic, without_evidence

    lme = OmegaConf.load(repo_root / "configs" / "longmemeval" / "default.yaml")
    questions = [
        q for q in load(data_dir / "longmemeval" / "longmemeval_oracle.json") if q.evidence and not q.abstention
    ][:30]
    arms = [a for a in make_arms(lme) if a.name == "graph_memory"]
    counter, reader = TokenCounter(), ProgrammaticAnswerer(float(lme.min_overlap))
    right = {True: 0, False: 0}
    for q in questions:
        stripped = without_evidence(q)
        assert not stripped.evidence and stripped.qid == q.qid
        kept = sum(len(s.turns) for s in stripped.sessions)
        assert kept == sum(len(s.turns) for s in q.sessions) - len(q.evidence)
        for intact, question in ((True, q), (False, stripped)):
            built = build_prompts(question, arms, 0, int(lme.candidates), [1], counter)
            right[intact] += evaluate_programmatic(q, built, reader)[0]["correct"]
    assert right[False] < right[True]
