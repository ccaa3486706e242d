"""The model-driven loop against a fake client that implements the LLM contract."""

from tailmem.fsmem.agents import loop
from tailmem.fsmem.agents.accounting import dollars
from tailmem.fsmem.agents.searcher import answer_model, answer_programmatic, parse_reply
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.center import center
from tailmem.fsmem.tools.management import management
from tailmem.llm import ChatResponse, ToolCall, Usage


class FakeClient:
    """Asks for `script` tool calls in turn (forever if `forever`), then answers."""

    role, backend, model = "searcher", "fake", "fake-model"

    def __init__(self, script, forever=False, answer="ANSWER: a Ferrari\nCITATIONS: people/calvin.md:5 [D3:1]"):
        self.script, self.forever, self.answer, self.calls = list(script), forever, answer, []

    def chat(self, messages, tools=None, **params):
        self.calls.append((list(messages), tools))
        usage = Usage(100, 40, 10)
        if tools and (self.script or self.forever):
            name, args = self.script.pop(0) if self.script else ("grep", {"pattern": "x"})
            return ChatResponse(None, (ToolCall(f"c{len(self.calls)}", name, args),), usage, self.model, False, 0.1)
        return ChatResponse(self.answer, (), usage, self.model, False, 0.1)


def store(tmp_path):
    s = Store(tmp_path / "s")
    management(s).call(
        "create",
        {
            "path": "people/calvin.md",
            "description": "Calvin",
            "content": "## 25 May, 2023 (session 3)\n- [D3:1] Calvin: I bought a Ferrari 488 GTB.\n",
        },
    )
    return s


def test_loop_dispatches_tools_and_accounts(tmp_path):
    h = center(store(tmp_path))
    fake = FakeClient([("grep", {"pattern": "Ferrari"}), ("view", {"path": "../x"})])
    a = answer_model(fake, "What did Calvin buy?", h, "filesystem", max_rounds=40)
    assert a.text == "a Ferrari" and a.citations == ("people/calvin.md:5 [D3:1]",)
    ep = a.episode
    assert (ep.rounds, ep.tool_calls, ep.tool_errors) == (2, 2, 1)
    assert (ep.prompt_tokens, ep.cached_tokens, ep.completion_tokens) == (300, 120, 30)
    tool_msgs = [m for m in fake.calls[-1][0] if m["role"] == "tool"]
    assert "Ferrari" in tool_msgs[0]["content"] and tool_msgs[1]["content"].startswith("error:")
    assert dollars(ep, {"fake-model": {"input": 1.0, "cached_input": 0.5, "output": 2.0}}) == (180 + 60 + 60) / 1e6


def test_round_cap_enforced(tmp_path):
    h = center(store(tmp_path))
    fake = FakeClient([], forever=True)
    text, ep, _ = loop.run(fake, "searcher", "sys", "q", h, max_rounds=5)
    assert ep.rounds == 5 and ep.tool_calls == 5 and ep.capped and text.startswith("ANSWER")
    assert fake.calls[-1][1] is None  # the final call offers no tools


def test_builder_cap_stops_without_answer(tmp_path):
    s = store(tmp_path)
    fake = FakeClient([], forever=True)
    _, ep, _ = loop.run(fake, "builder", "sys", "chunk", management(s), max_rounds=60, final_answer_on_cap=False)
    assert ep.rounds == 60 and ep.capped and len(fake.calls) == 60


def test_programmatic_searcher_uses_tools(tmp_path):
    a = answer_programmatic("When did Calvin buy a Ferrari?", center(store(tmp_path)))
    assert a.text == "25 May, 2023" and a.citations[0].startswith("people/calvin.md:")
    assert a.episode.agent == "programmatic-searcher" and a.episode.tool_calls > 0 and a.episode.prompt_tokens == 0


def test_parse_reply():
    assert parse_reply("ANSWER: Tokyo\nCITATIONS: a.md:3; b.md:4") == ("Tokyo", ("a.md:3", "b.md:4"))
