"""The judge and the model answerer against the loopback OpenAI-compatible server; yes/no variants parsed."""

import pytest

from llm_testkit import FakeServer, llm_cfg
from tailmem.data.longmemeval import Question, Session, Turn
from tailmem.errors import ConfigError
from tailmem.haystack.answer import ModelAnswerer
from tailmem.haystack.judge import judge_many, parse_verdict, template_name
from tailmem.llm import get_client


@pytest.mark.parametrize(
    "reply, verdict",
    [
        ("yes", True),
        ("Yes.", True),
        ("**YES**", True),
        ("Answer: yes", True),
        ("yes, it gives Tokyo", True),
        ("Correct", True),
        ("True", True),
        ("No", False),
        ("no.", False),
        ("**No** - it says Paris", False),
        ("Verdict: incorrect", False),
        ("The response is not correct.", False),
        ("false", False),
        ("I cannot tell", None),
        ("", None),
        (None, None),
        ("Nope", None),
    ],
)
def test_parse_verdict_variants(reply, verdict):
    assert parse_verdict(reply) is verdict


def q(qid, qtype):
    s = (Session("s", "2023/01/01", (Turn("user", "My sister moved to Tokyo.", True),)),)
    return Question(qid, qtype, "Where did my sister move?", "2023/02/01", "Tokyo", ("s",), s)


def test_templates_by_type():
    assert template_name(q("a", "temporal-reasoning")) == "judge_temporal"
    assert template_name(q("a_abs", "temporal-reasoning")) == "judge_abstention"
    assert template_name(q("a", "single-session-preference")) == "judge_preference"
    assert template_name(q("a", "multi-session")) == "judge_default"


def test_judge_path_on_the_loopback_server(tmp_path):
    # the reply follows the response judged (requests go out in prefix order, not in list order)
    replies = {"Tokyo": "Yes.", "Paris": "**no**", "not mentioned": "Answer: YES", "?": "hmm"}

    def reply(body):
        return replies[body["messages"][0]["content"].split("Assistant's response: ")[1].split("\n")[0]]

    with FakeServer(reply=reply) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, concurrency=1), "judge", "test")
        questions = [
            q("a", "multi-session"),
            q("b", "knowledge-update"),
            q("c_abs", "multi-session"),
            q("d", "temporal-reasoning"),
        ]
        verdicts = judge_many(client, questions, ["Tokyo", "Paris", "not mentioned", "?"])
    assert [v.official for v in verdicts] == [True, False, True, False]  # LongMemEval's reading (the default)
    assert [v.ours for v in verdicts] == [True, False, True, None]  # ours: "hmm" is unparsed
    assert server.requests == 4
    prompts = {
        b["messages"][0]["content"].split("Assistant's response: ")[1].split("\n")[0]: b["messages"][0]["content"]
        for b in server.bodies
    }
    assert "updated answer" in prompts["Paris"] and "cannot be answered" in prompts["not mentioned"]
    assert "by exactly one" in prompts["?"]


def test_model_answerer_on_the_loopback_server(tmp_path):
    with FakeServer(reply=lambda body: " Tokyo ") as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "searcher", "test")
        answerer = ModelAnswerer(client, seed=2)
        (a,) = answerer.answer_many(
            [answerer.request("S0 2023\n  0U: my sister moved to Tokyo", "Where?", "2023/02/01")]
        )
    assert a.text == "Tokyo" and a.agent == "openai:test-model"
    body = server.bodies[0]
    assert body["seed"] == 2 and "my sister moved to Tokyo" in body["messages"][0]["content"]


def test_local_scoring_model_cannot_answer():
    class Local:
        backend = "local"

    with pytest.raises(ConfigError, match="llm.roles.searcher"):
        ModelAnswerer(Local())
