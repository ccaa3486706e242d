"""A prompt that outgrows the embedded model's context window costs its item, not the stage: the fsmem agent loop
ends that episode with an empty answer, a LongMemEval arm gets no answer, an ALFWorld game is lost, each counted
in the run-setting columns, and the items after it still run."""

from __future__ import annotations

import pytest

from tailmem.fsmem.agents import loop
from tailmem.fsmem.agents.accounting import RUN_SETTING_COLUMNS, run_setting_counts
from tailmem.llm.backends.base import ContextOverflow
from tailmem.llm.records import ChatResponse, ToolCall, Usage


class OverflowingClient:
    """Answers with one tool call, then overflows on the next request (the tool output made it too long)."""

    backend = "instruct"
    model = "fake"
    settings = None

    def __init__(self, overflow_at: int):
        self.calls, self.overflow_at = 0, overflow_at

    def chat(self, messages, tools=None, **params):
        self.calls += 1
        if self.calls == self.overflow_at:
            raise ContextOverflow("stage test, role searcher: the prompt is 9000 tokens ... n_ctx=8192")
        if tools and self.calls == 1:
            return ChatResponse("", (ToolCall("c1", "search", {"query": "x"}),), Usage(10, 0, 2), "fake", False, 0.1)
        return ChatResponse("Paris", (), Usage(10, 0, 2), "fake", False, 0.1)


class Harness:
    tools = True
    malformed = 0
    max_output_chars = None
    calls = errors = chars_read = truncations = 0

    def schemas(self, small, only=None):
        return [{"type": "function", "function": {"name": "search", "parameters": {}}}]

    def call(self, name, args):
        class Result:
            found = True
            output = "x" * 100

        return Result()

    def compact_arguments(self, name, args):
        return args


def test_fsmem_episode_ends_counted_and_the_next_one_runs():
    text, ep, _ = loop.run(OverflowingClient(overflow_at=2), "searcher", "sys", "Q?", Harness(), max_rounds=4)
    assert text == "" and ep.context_overflow and ep.no_answer
    text2, ep2, _ = loop.run(OverflowingClient(overflow_at=0), "searcher", "sys", "Q?", Harness(), max_rounds=4)
    assert text2 == "Paris" and not ep2.context_overflow
    rows = [{f"search_{k}": v for k, v in e.to_json().items()} for e in (ep, ep2)]
    assert run_setting_counts(rows)["context overflows"] == 1
    assert "context overflows" in [label for label, _ in RUN_SETTING_COLUMNS]


def test_client_keeps_the_overflow_type_with_the_stage(tmp_path, monkeypatch):
    """The client adds the stage and re-raises ContextOverflow itself, so the loops above can tell it apart."""
    from tailmem.llm import client as client_module
    from tailmem.llm.check import _compose

    class Impl:
        def endpoint_id(self, model):
            return "in-process"

        def chat(self, model, messages, tools, params, on_send=None):
            raise ContextOverflow("role searcher: the prompt is 9000 tokens")

    monkeypatch.setattr(client_module, "_backend", lambda settings, llm: Impl())
    client = client_module.get_client(_compose(["llm=embedded", f"results_dir={tmp_path}"]), "searcher", "my_stage")
    with pytest.raises(ContextOverflow, match="stage my_stage, role searcher"):
        client.chat([{"role": "user", "content": "hi"}])


def test_longmemeval_arm_without_answer_is_counted_and_the_others_answered():
    from tailmem.haystack.answer import ModelAnswerer
    from tailmem.studies.longmemeval.tables import per_seed_summary

    class Client(OverflowingClient):
        def chat(self, messages, tools=None, **params):
            if "LONG" in messages[0]["content"]:
                raise ContextOverflow("role searcher: the prompt is 9000 tokens")
            return ChatResponse("Paris", (), Usage(10, 0, 2), "fake", False, 0.1)

    answerer = ModelAnswerer(Client(0))
    answers = answerer.answer_many([answerer.request(m, "Where?", "2023") for m in ("short", "LONG", "other")])
    assert [a.text for a in answers] == ["Paris", "", "Paris"]
    assert [a.accounting()["answer_context_overflow"] for a in answers] == [False, True, False]
    import pandas as pd

    rows = pd.DataFrame(
        [
            {
                "dataset": "s",
                "arm": "full",
                "label": "Full",
                "seed": 0,
                "qid": i,
                "prompt_tokens": 1,
                "memory_tokens": 1,
                "question_type": "t",
                "correct": a.text == "Paris",
                "answer": a.text,
                "abstention": False,
                "coverage": 1.0,
                "answer_sessions_placed": 1.0,
                f"recall@{1}": 1.0,
                **a.accounting(),
            }
            for i, a in enumerate(answers)
        ]
    )
    assert per_seed_summary(rows, [1]).context_overflows.tolist() == [1]
