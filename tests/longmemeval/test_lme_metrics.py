"""Evidence coverage, session recall@k, substring match and the memory mapping, on hand-built haystacks."""

import math

from tailmem.data.longmemeval import Question, Session, Turn
from tailmem.haystack.answer import ABSTAIN, ProgrammaticAnswerer
from tailmem.haystack.haystack_memory import build_store
from tailmem.haystack.metrics import (
    abstains,
    evidence_coverage,
    sessions_in_prompt,
    substring_correct,
    substring_match,
)
from tailmem.haystack.retrieval import rank, recall_at_k
from tailmem.memory.controllers import make_controller
from tailmem.memory.query import Query
from tailmem.memory.tokens import TokenCounter


def question(qid="q1", answer="Tokyo"):
    sessions = (
        Session(
            "s0", "2023/01/01 (Sun) 10:00", (Turn("user", "I love hiking in the Alps."), Turn("assistant", "Nice!"))
        ),
        Session(
            "s1",
            "2023/02/01 (Wed) 10:00",
            (
                Turn("user", "Can you suggest a recipe for dinner tonight?"),
                Turn("assistant", "Try a mushroom risotto with parmesan and thyme."),
                Turn("user", "By the way, my sister moved to Tokyo last month.", has_answer=True),
            ),
        ),
        Session(
            "s2",
            "2023/03/01 (Wed) 10:00",
            (Turn("user", "What is the capital of France?"), Turn("assistant", "Paris.")),
        ),
    )
    return Question(qid, "single-session-user", "Where did my sister move to?", "2023/04/01", answer, ("s1",), sessions)


def test_substring_match_respects_word_boundaries():
    assert substring_match("She moved to Tokyo, Japan.", "tokyo")
    assert substring_match("I have 5 projects", "5") and not substring_match("In 2015 I moved", "5")
    assert substring_match("It was the Blue Whale!", "the blue whale") and not substring_match("", "x")


def test_abstention_scoring():
    q, q_abs = question(), question("q1_abs", "You did not mention this")
    assert abstains(ABSTAIN) and abstains("I don't know.") and not abstains("Tokyo")
    assert substring_correct(q_abs, "That was not mentioned.") and not substring_correct(q_abs, "Tokyo")
    assert substring_correct(q, "Tokyo") and not substring_correct(q, "I don't know about Tokyo")


def test_evidence_coverage_and_session_placement():
    q = question()
    assert evidence_coverage(q, "S1 x\n  2U: By the way, my sister   moved to Tokyo last month.") == 1.0
    assert evidence_coverage(q, "S1 summary: Can you suggest a recipe") == 0.0
    no_evidence = Question("q", "multi-session", "?", "d", "a", (), q.sessions[:1])
    assert math.isnan(evidence_coverage(no_evidence, "anything"))
    assert sessions_in_prompt([1, 2], [2, 0]) == 0.5 and math.isnan(sessions_in_prompt([], [1]))


def test_recall_at_k():
    ranked = ["s3", "s1", "s0", "s2"]
    assert recall_at_k(ranked, ["s1", "s2"], 1) == 0.0
    assert recall_at_k(ranked, ["s1", "s2"], 2) == 0.5
    assert recall_at_k(ranked, ["s1", "s2"], 4) == 1.0
    assert math.isnan(recall_at_k(ranked, [], 3))


def test_items_list_the_most_relevant_turn_first_and_ctmc_keeps_it():
    q = question()
    ranking = rank(q.sessions, q.question)
    assert ranking.order[0] == 1
    store = build_store(q, q.sessions, ranking)
    assert "sister moved to Tokyo" in store.items[1].compact[1]  # turn 2 listed first
    assert len(store.history) == 7
    counter = TokenCounter()
    query = Query(step=0, current=ranking.order[0], related=tuple(ranking.order[1:]), text=q.question)
    tight = make_controller({"name": "ctmc", "budget": 60, "tau": 1.0, "rank_by": "query"}).build(store, query, counter)
    assert evidence_coverage(q, tight.text) == 1.0 and tight.tokens <= 60
    whole = make_controller({"name": "graph_memory", "budget": 30, "rank_by": "query"}).build(store, query, counter)
    assert 1 not in whole.core  # the answer session does not fit whole
    assert ProgrammaticAnswerer().answer(tight.text, q.question, q.date).text.endswith("moved to Tokyo last month.")


def test_rank_by_query_keeps_the_retrievers_order():
    q = question()
    ranking = rank(q.sessions, q.question)
    store = build_store(q, q.sessions, ranking)
    store.touch([0], 0)  # access statistics must not reorder retrieval candidates
    p = make_controller({"name": "graph_memory", "budget": None, "rank_by": "query"}).build(
        store, Query(step=0, current=None, related=(2, 0, 1)), TokenCounter()
    )
    assert p.core == (2, 0, 1)
