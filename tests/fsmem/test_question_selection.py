"""Sizing keys (issue 28): `fsmem.stratified` spreads `max_questions` over the categories, `fsmem.max_sessions`
builds every variant from the first sessions and asks only the questions whose evidence lies in them."""

import pytest
from omegaconf import OmegaConf

from tailmem.data.locomo import QA, Conversation, Session, Turn
from tailmem.errors import ConfigError
from tailmem.fsmem.benchmarks import evidence_sessions, first_sessions
from tailmem.fsmem.errors import FsmemError
from tailmem.fsmem.questions import select_questions, stratified


def conv() -> Conversation:
    sessions = tuple(Session(i, f"1:00 pm on {i} May, 2023", (Turn(f"D{i}:1", "A", f"turn {i}"),)) for i in (1, 2, 3))
    qa = [
        QA(f"q{i}", "a", cat, ev)
        for i, (cat, ev) in enumerate(
            [
                (4, ("D1:1",)),
                (4, ("D2:1",)),
                (4, ("D3:1",)),
                (4, ("D1:1",)),
                (2, ("D1:1", "D2:1")),
                (2, ("D3:1",)),
                (1, ("D1:1", "D3:1")),
                (3, ()),
                (5, ("D1:1",)),
                (2, ("D2:1; D1:1",)),
            ]
        )
    ]
    return Conversation("c", ("A", "B"), sessions, tuple(qa))


def fs(**kw):
    return OmegaConf.create({"categories": [1, 2, 3, 4], "max_questions": None, "stratified": False} | kw)


def names(qs):
    return [q.question for q in qs]


def test_defaults_keep_the_first_questions_in_file_order():
    assert names(select_questions(conv(), fs(max_questions=3), "locomo")) == ["q0", "q1", "q2"]
    assert len(select_questions(conv(), fs(), "locomo")) == 9  # category 5 left out
    assert len(select_questions(conv(), fs(stratified=True), "locomo")) == 9  # no limit: stratifying changes nothing


def test_stratified_takes_each_category_in_turn_in_file_order():
    picked = select_questions(conv(), fs(max_questions=5, stratified=True), "locomo")
    assert names(picked) == ["q0", "q4", "q5", "q6", "q7"]  # 1, 2, 3 and 4 once, then category 2's second
    assert sorted(q.category for q in picked) == [1, 2, 2, 3, 4]


def test_stratified_runs_a_small_category_out_and_fills_from_the_others():
    qs = list(conv().qa)
    picked = stratified([q for q in qs if q.category in (1, 4)], 4, (1, 2, 3, 4))
    assert [q.category for q in picked] == [4, 4, 4, 1]


def test_max_questions_below_one_is_refused():
    with pytest.raises(ConfigError, match="max_questions"):
        select_questions(conv(), fs(max_questions=0), "locomo")


def test_max_sessions_keeps_the_first_sessions_and_their_questions():
    c = first_sessions(conv(), 2)
    assert [s.index for s in c.sessions] == [1, 2]
    assert names(c.qa) == ["q0", "q1", "q3", "q4", "q8", "q9"]  # evidence all in 1-2; q7 (no evidence) dropped
    assert first_sessions(conv(), None) == conv()
    with pytest.raises(FsmemError, match="max_sessions"):
        first_sessions(conv(), 0)


def test_evidence_sessions_reads_joined_entries():
    assert evidence_sessions(("D2:1; D11:4", "D3:7")) == {2, 3, 11}
    assert evidence_sessions(()) == set()


def test_max_sessions_applies_to_every_stage_through_the_loader(data_dir):
    from tailmem.fsmem.benchmarks import conversation
    from tailmem.workflow import compose_config

    cfg = compose_config("smoke", [f"data_dir={data_dir}", "fsmem.max_sessions=3"])
    c = conversation(cfg.fsmem, "locomo", "conv-50")
    assert len(c.sessions) == 3 and c.qa and all(evidence_sessions(q.evidence) <= {1, 2, 3} for q in c.qa)
