"""Issue 13, finding 8: every benchmark loader checks every record; a bad one stops the load naming the file,
the record (index or id) and the field. The real files in TAILMEM_DATA_DIR load unchanged."""

import copy
import json
import os
from pathlib import Path

import pytest

from tailmem.data import locomo, longmemeval, personamem, realtalk
from tailmem.errors import DataError

DATA = Path(os.environ.get("TAILMEM_DATA_DIR", Path(__file__).resolve().parents[3] / "shared" / "data"))


def locomo_sample():
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:00 pm on 8 May, 2023",
            "session_1": [
                {"dia_id": "D1:1", "speaker": "Ann", "text": "I bought a Ferrari."},
                {"dia_id": "D1:2", "speaker": "Bob", "text": "Nice", "blip_caption": None},
            ],
        },
        "qa": [
            {"question": "What did Ann buy?", "answer": "a Ferrari", "evidence": ["D1:1"], "category": 4},
            {"question": "Which year?", "answer": 2023, "evidence": [], "category": 2},
            {"question": "What did Bob buy?", "adversarial_answer": "a Ferrari", "evidence": [], "category": 5},
        ],
    }


def test_locomo_good_record_and_numbers_as_text():
    conv = locomo.parse(locomo_sample(), "f.json")
    assert [q.answer for q in conv.qa] == ["a Ferrari", "2023", "a Ferrari"]
    assert conv.qa[0].evidence == ("D1:1",) and conv.sessions[0].turns[1].caption == ""


def _edit(sample, change):
    s = copy.deepcopy(sample)
    change(s)
    return s


LOCOMO_BAD = [  # (change, words the error must hold)
    (lambda s: s["qa"][0].pop("answer"), ["qa[0]", "'answer'", "missing"]),  # gold "" before
    (lambda s: s["qa"][0].update(answer=None), ["qa[0]", "'answer'", "NoneType"]),  # 'None' before
    (lambda s: s["qa"][0].update(answer=True), ["qa[0]", "'answer'", "bool"]),
    (lambda s: s["qa"][0].update(evidence="D1:3"), ["qa[0]", "'evidence'", "list of strings"]),  # characters before
    (lambda s: s["qa"][1].update(question=7), ["qa[1]", "'question'", "int"]),  # AttributeError later before
    (lambda s: s["qa"][1].update(question="  "), ["qa[1]", "'question'"]),
    (lambda s: s["qa"][0].update(category="4"), ["qa[0]", "'category'", "integer"]),
    (lambda s: s["qa"][0].update(category=9), ["qa[0]", "'category'", "9 is not one of"]),
    (lambda s: s["qa"][2].pop("adversarial_answer"), ["qa[2]", "'adversarial_answer'"]),
    (lambda s: s["qa"].append("not a record"), ["qa[3]", "JSON object"]),
    (lambda s: s["conversation"]["session_1"][0].pop("speaker"), ["session_1 turn 0", "'speaker'"]),
    (lambda s: s["conversation"]["session_1"][1].update(text=None), ["session_1 turn 1", "'text'"]),
    (lambda s: s["conversation"]["session_1"][1].update(blip_caption=3), ["session_1 turn 1", "'blip_caption'"]),
    (lambda s: s["conversation"].update(session_2="oops"), ["'session_2'", "a list"]),
    (lambda s: s["conversation"].pop("speaker_b"), ["'speaker_b'"]),
    (lambda s: s.update(qa={"a": 1}), ["'qa'", "a list"]),
]


@pytest.mark.parametrize("change,words", LOCOMO_BAD, ids=[str(i) for i in range(len(LOCOMO_BAD))])
def test_locomo_bad_records_name_file_record_and_field(change, words):
    with pytest.raises(DataError) as err:
        locomo.parse(_edit(locomo_sample(), change), "data/locomo10.json")
    msg = str(err.value)
    assert "data/locomo10.json" in msg and "conv-x" in msg, msg
    for w in words:
        assert w in msg, (w, msg)


def test_locomo_load_stops_on_a_bad_record(tmp_path):
    bad = _edit(locomo_sample(), lambda s: s["qa"][1].pop("answer"))
    f = tmp_path / "locomo.json"
    f.write_text(json.dumps([bad]))
    with pytest.raises(DataError, match=r"locomo.json: conversation 'conv-x': qa\[1\]: field 'answer'"):
        locomo.load(f, "conv-x")


def realtalk_chat():
    return {
        "name": {"speaker_1": "Emi", "speaker_2": "Elise"},
        "session_1": [{"dia_id": "D1:1", "speaker": "Emi", "clean_text": "hi", "date_time": "29.12.2023, 22:42:04"}],
        "qa": [{"question": "Who?", "answer": "Emi", "evidence": ["D1:1"], "category": 1}],
    }


@pytest.mark.parametrize(
    "change,words",
    [
        (lambda c: c["qa"][0].pop("answer"), ["qa[0]", "'answer'", "missing"]),
        (lambda c: c["qa"][0].update(answer=None), ["qa[0]", "'answer'"]),
        (lambda c: c["qa"][0].update(evidence="D1:1"), ["qa[0]", "'evidence'"]),
        (lambda c: c["qa"][0].update(category=5), ["qa[0]", "'category'"]),
        (lambda c: c["qa"][0].update(question=["x"]), ["qa[0]", "'question'"]),
        (lambda c: c["session_1"][0].update(dia_id=1), ["session_1 turn 0", "'dia_id'"]),
        (lambda c: c["name"].pop("speaker_2"), ["'speaker_2'"]),
    ],
)
def test_realtalk_bad_records(change, words):
    with pytest.raises(DataError) as err:
        realtalk.parse(_edit(realtalk_chat(), change), "Chat_1", "rt/Chat_1.json")
    msg = str(err.value)
    assert "rt/Chat_1.json" in msg and "Chat_1" in msg
    for w in words:
        assert w in msg, (w, msg)
    assert realtalk.parse(realtalk_chat(), "Chat_1").sessions[0].date_time == "22:42 on 29 December, 2023"


def lme_item():
    return {
        "question_id": "q1",
        "question_type": "multi-session",
        "question": "How many?",
        "question_date": "2023/05/01",
        "answer": 3,
        "answer_session_ids": ["s1"],
        "haystack_dates": ["2023/04/01"],
        "haystack_session_ids": ["s1"],
        "haystack_sessions": [[{"role": "user", "content": "I have 3 cats", "has_answer": True}]],
    }


@pytest.mark.parametrize(
    "change,words",
    [
        (lambda i: i.update(answer=None), ["'q1'", "'answer'"]),
        (lambda i: i.update(question=5), ["'q1'", "'question'"]),
        (lambda i: i.update(answer_session_ids="s1"), ["'answer_session_ids'", "list of strings"]),
        (lambda i: i.update(haystack_dates=[20230401]), ["'haystack_dates'"]),
        (lambda i: i["haystack_sessions"][0][0].update(role="bot"), ["haystack_sessions[0]", "turn 0", "'role'"]),
        (lambda i: i["haystack_sessions"][0][0].update(has_answer="yes"), ["turn 0", "'has_answer'"]),
        (lambda i: i["haystack_sessions"][0][0].pop("content"), ["turn 0", "'content'"]),
    ],
)
def test_longmemeval_bad_records(change, words):
    assert longmemeval.parse(lme_item(), "lme.json").answer == "3"
    with pytest.raises(DataError) as err:
        longmemeval.parse(_edit(lme_item(), change), "lme.json", 4)
    msg = str(err.value)
    assert "lme.json" in msg
    for w in words:
        assert w in msg, (w, msg)


HEADER = ",".join(personamem.COLUMNS) + "\n"


@pytest.mark.parametrize(
    "row,words",
    [
        (',t,topic,What?,(a),"[""(a) x"", ""(b) y""]",c1,5', ["line 2", "'question_id'"]),
        ('q1,t,topic,What?,(c),"[""(a) x"", ""(b) y""]",c1,5', ["line 2", "'q1'", "'correct_answer'"]),
        ('q1,t,topic,What?,(a),"[""(a) x"", ""(b) y""]",c1,five', ["'q1'", "'end_index_in_shared_context'"]),
        ('q1,t,topic,What?,(a),"[""(a) x"", ""(b) y""]",c1,0', ["'q1'", "'end_index_in_shared_context'", ">= 1"]),
        ("q1,t,topic,What?,(a),not a list,c1,5", ["'q1'", "'all_options'"]),
        ('q1,t,topic,,(a),"[""(a) x""]",c1,5', ["'q1'", "'user_question_or_message'"]),
    ],
)
def test_personamem_bad_rows(tmp_path, row, words):
    f = tmp_path / "questions_32k.csv"
    f.write_text(HEADER + row + "\n")
    with pytest.raises(DataError) as err:
        personamem.load_questions(f)
    msg = str(err.value)
    assert str(f) in msg
    for w in words:
        assert w in msg, (w, msg)


@pytest.mark.skipif(not (DATA / "locomo" / "locomo10.json").exists(), reason="benchmark data not present")
def test_the_real_files_still_load():
    data = json.loads((DATA / "locomo" / "locomo10.json").read_text())
    qa = [q for s in data for q in locomo.parse(s, "locomo10.json").qa]
    assert len(qa) == 1986 and all(isinstance(q.question, str) and q.answer for q in qa)
    # checked against the raw JSON, not our parser: 6 integer answers become their decimal text
    ints = [str(q["answer"]) for s in data for q in s["qa"] if isinstance(q.get("answer"), int)]
    assert len(ints) == 6 and set(ints) <= {q.answer for q in qa}
    chats = realtalk.chat_ids(DATA / "realtalk")
    assert sum(len(realtalk.load(DATA / "realtalk", c).qa) for c in chats) == 728
    if (DATA / "longmemeval" / "longmemeval_oracle.json").exists():
        assert len(longmemeval.load(DATA / "longmemeval" / "longmemeval_oracle.json")) == 500
    if (DATA / "personamem" / "questions_32k.csv").exists():
        assert len(personamem.load_questions(DATA / "personamem" / "questions_32k.csv")) == 589
