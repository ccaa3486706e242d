"""The LongMemEval loader on the real oracle file and S sample, and its errors on malformed files."""

import json
from collections import Counter

import pytest

from tailmem.data.longmemeval import QUESTION_TYPES, load, select
from tailmem.errors import DataError


@pytest.fixture(scope="module")
def oracle(data_dir):
    return load(data_dir / "longmemeval" / "longmemeval_oracle.json")


def test_oracle_has_the_official_distribution(oracle):
    assert len(oracle) == 500
    assert Counter(q.qtype for q in oracle) == {
        "temporal-reasoning": 133,
        "multi-session": 133,
        "knowledge-update": 78,
        "single-session-user": 70,
        "single-session-assistant": 56,
        "single-session-preference": 30,
    }
    assert sum(q.abstention for q in oracle) == 30
    q = oracle[0]
    assert all(s.turns and s.date for s in q.sessions) and isinstance(q.answer, str)
    assert {s.id for s in q.sessions} >= set(q.answer_session_ids)


def test_s_sample_is_stratified_with_long_haystacks(data_dir):
    qs = load(data_dir / "longmemeval" / "longmemeval_s_cleaned.sample60.json")
    assert len(qs) == 60 and Counter(q.qtype for q in qs) == {t: 10 for t in QUESTION_TYPES}
    assert min(len(q.sessions) for q in qs) >= 38
    assert all(q.evidence for q in qs if not q.abstention)


def test_select_takes_the_first_per_type(oracle):
    picked = select(oracle, 2)
    assert len(picked) == 12 and Counter(q.qtype for q in picked) == {t: 2 for t in QUESTION_TYPES}
    assert picked == sorted(picked, key=lambda q: q.qid)


def _write(tmp_path, data, name="bad.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


GOOD = {
    "question_id": "q1",
    "question_type": "multi-session",
    "question": "Q?",
    "question_date": "2023/05/01",
    "answer": 3,
    "answer_session_ids": ["a"],
    "haystack_dates": ["2023/04/01"],
    "haystack_session_ids": ["a"],
    "haystack_sessions": [[{"role": "user", "content": "I have 3 cats", "has_answer": True}]],
}


def test_a_good_instance_parses(tmp_path):
    (q,) = load(_write(tmp_path, [GOOD]))
    assert q.answer == "3" and q.evidence == ((0, 0),)


@pytest.mark.parametrize(
    "broken, match",
    [
        ({k: v for k, v in GOOD.items() if k != "answer"}, r"bad\.json: question 'q1': missing field 'answer'"),
        (GOOD | {"question_type": "trivia"}, r"question 'q1': question_type 'trivia'"),
        (GOOD | {"haystack_dates": []}, r"question 'q1': haystack_session_ids, haystack_dates"),
        (GOOD | {"haystack_sessions": [[{"role": "user"}]]}, r"question 'q1': session 'a' has a turn without"),
    ],
)
def test_malformed_instances_name_file_and_question(tmp_path, broken, match):
    with pytest.raises(DataError, match=match):
        load(_write(tmp_path, [GOOD, broken]))


def test_not_json_or_not_a_list(tmp_path):
    with pytest.raises(DataError, match=r"bad\.json: not valid JSON"):
        load(_write(tmp_path, "{oops"))
    with pytest.raises(DataError, match="expected a JSON list"):
        load(_write(tmp_path, {"a": 1}))
    with pytest.raises(DataError, match="not found"):
        load(tmp_path / "missing.json")
