"""PersonaMem loaders on the official-format fixture, malformed files, and a context as a prefix-cut conversation."""

import json

import pytest

from tailmem.data import personamem
from tailmem.errors import DataError


def test_loader_on_fixture(personamem_data):
    qs = personamem.load_questions(personamem.questions_path(personamem_data, "32k"))
    assert [q.question_id for q in qs] == [f"q{i}" for i in range(1, 8)]
    assert qs[1].answer == "b" and qs[1].options[1].startswith("Sushi")  # the Python-literal options row
    assert qs[3].question_type == "track_full_preference_evolution" and qs[3].end_index == 9
    ctx = personamem.load_contexts(personamem.contexts_path(personamem_data, "32k"))
    assert set(ctx) == {"ctx1", "ctx2"} and len(ctx["ctx1"]) == 10 and ctx["ctx1"][0].role == "system"
    seen = personamem.context_for(qs[0], ctx)
    assert len(seen) == 3 and seen[-1].role == "assistant" and "sushi" not in " ".join(m.content for m in seen)
    assert personamem.missing(personamem_data, "32k") == []
    assert [p.name for p in personamem.missing(personamem_data, "128k")] == [
        "questions_128k.csv",
        "shared_contexts_128k.jsonl",
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("{not json", "line 2: expected one JSON object"),
        ('["ctx3", []]', "line 2: .*non-empty JSON object"),
        ('{"ctx3": {"role": "user"}}', "line 2: .*a list of messages"),
        ('{"ctx3": [{"role": "robot", "content": "hi"}]}', "line 2: .*message 0.*'system', 'user', 'assistant'"),
        ('{"ctx3": [{"role": "user"}]}', 'line 2: .*"content": string'),
        ('{"ctx1": []}', "line 2: shared_context_id 'ctx1' appears on an earlier line"),
    ],
)
def test_malformed_contexts_line_raises(personamem_data, pm, line, expected):
    path = personamem.contexts_path(personamem_data, "32k")
    path.write_text(json.dumps({"ctx1": pm.messages("ctx1")}) + "\n" + line + "\n")
    with pytest.raises(DataError, match=expected) as err:
        personamem.load_contexts(path)
    assert str(path) in str(err.value)


def test_cuts_hold_every_end_index_and_the_block():
    assert personamem.cuts([3, 5, 9], 20) == [3, 5, 9]
    assert personamem.cuts([9, 3, 3], 2) == [2, 3, 5, 7, 9]
    assert personamem.cuts([4], 4) == [4] and personamem.cuts([10], 3) == [3, 6, 9, 10]


def test_context_as_conversation(pm):
    msgs = [personamem.Message(m["role"], m["content"]) for m in pm.messages("ctx1")]
    conv = personamem.as_conversation("ctx1", msgs, [3, 5, 9], block=2)
    assert [personamem.message_number(s.turns[-1]) for s in conv.sessions] == [2, 3, 5, 7, 9]
    turns = [t for s in conv.sessions for t in s.turns]
    assert len(turns) == 9 and [personamem.message_number(t) for t in turns] == list(
        range(1, 10)
    )  # message 10: never seen
    assert turns[0].speaker == "System" and turns[1].speaker == "User" and turns[2].speaker == "Assistant"
    assert turns[3].render().startswith("[D3:4] User: zc1m004")
    assert conv.sessions[1].date_time == "messages 3-3" and conv.speakers == ("User", "Assistant")
    p = personamem.prefix(conv, 5)
    assert [personamem.message_number(t) for s in p.sessions for t in s.turns] == [1, 2, 3, 4, 5]
    with pytest.raises(DataError, match="4 is not a session end"):
        personamem.prefix(conv, 4)
    with pytest.raises(DataError, match="past its 10 messages"):
        personamem.as_conversation("ctx1", msgs, [11], block=20)


def test_multiline_messages_become_one_line():
    conv = personamem.as_conversation("c", [personamem.Message("user", "one\ntwo\n\n  three")], [1], 20)
    assert conv.sessions[0].turns[0].text == "one two three"
