"""The tool-loop protocol a small model can drive (issue 28), against a scripted client (no model): the searcher's
first round requires a tool call, an answer is never accepted before a lookup ran, malformed calls and answers
forced by the cap are counted, and the embedded model gets compact tool forms and prompts."""

import pytest

from tailmem.data.locomo import Turn
from tailmem.fsmem.agents import builder, loop, reorganizer
from tailmem.fsmem.agents.accounting import RUN_SETTING_COLUMNS, run_setting_counts
from tailmem.fsmem.agents.models import compact, search_prompt
from tailmem.fsmem.agents.searcher import answer_model
from tailmem.fsmem.chunks import Chunk
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.center import center
from tailmem.fsmem.tools.management import management
from tailmem.fsmem.tools.reading import COMPACT_GREP_RESULTS
from tailmem.llm import ChatResponse, ToolCall, Usage

ANSWER = "ANSWER: a Ferrari\nCITATIONS: people/calvin.md:5 [D3:1]"


class Scripted:
    """Plays `replies` in order: a (tool, arguments) pair is a call, a string an answer; after the script it
    answers. Records every request's messages, tools and params (tool_choice)."""

    role, model = "searcher", "scripted"

    def __init__(self, replies, backend="fake", honour_required=False):
        self.replies, self.backend, self.honour_required, self.requests = list(replies), backend, honour_required, []

    def chat(self, messages, tools=None, task=None, **params):
        self.requests.append({"messages": list(messages), "tools": tools, "params": params})
        usage = Usage(50, 10, 5)
        reply = self.replies.pop(0) if self.replies and tools and params.get("tool_choice") != "none" else ANSWER
        if isinstance(reply, str) and self.honour_required and params.get("tool_choice") == "required":
            reply = ("grep", {"pattern": "Ferrari"})  # a grammar-constrained model cannot answer here
        if isinstance(reply, tuple):
            return ChatResponse(None, (ToolCall(f"c{len(self.requests)}", *reply),), usage, self.model, False, 0.0)
        return ChatResponse(reply, (), usage, self.model, False, 0.0)


def store(tmp_path):
    s = Store(tmp_path / "s")
    management(s).call(
        "create",
        {
            "path": "people/calvin.md",
            "description": "What Calvin did, by date",
            "content": "## 25 May, 2023 (session 3)\n- [D3:1] Calvin: I bought a Ferrari 488 GTB.\n",
        },
    )
    return s


def choices(client):
    return [r["params"].get("tool_choice") for r in client.requests]


def test_round_one_requires_a_call_and_later_rounds_are_auto(tmp_path):
    fake = Scripted([("grep", {"pattern": "Ferrari"}), ("view", {"path": "people/calvin.md"})])
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=5)
    assert choices(fake) == ["required", "auto", "auto"]
    assert a.text == "a Ferrari" and a.episode.looked_up is True and not a.episode.no_lookup
    assert (a.episode.rounds, a.episode.refused_answers, a.episode.malformed_calls) == (2, 0, 0)


def test_an_answer_before_any_lookup_is_refused_not_accepted(tmp_path):
    fake = Scripted(["ANSWER: a guess\nCITATIONS: none", ("grep", {"pattern": "Ferrari"})])
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=5)
    assert a.text == "a Ferrari"  # the guess was never taken
    assert choices(fake) == ["required", "required", "auto"]
    assert a.episode.refused_answers == 1 and a.episode.looked_up is True
    second = fake.requests[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": "ANSWER: a guess\nCITATIONS: none"}
    assert second[-1] == {"role": "user", "content": loop.LOOKUP_NOTICE}


def test_a_model_that_never_looks_up_ends_at_the_cap_and_is_counted(tmp_path, caplog):
    fake = Scripted(["ANSWER: guess"] * 10)
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=3)
    ep = a.episode
    assert len(fake.requests) == 4 and fake.requests[-1]["tools"] is None  # 3 refusals, then told to answer
    assert fake.requests[-1]["messages"][-1]["content"] == loop.CAP_NOTICE
    assert (ep.rounds, ep.refused_answers, ep.capped, ep.looked_up, ep.no_lookup, ep.no_tool_call) == (
        0,
        3,
        True,
        False,
        True,
        True,
    )
    row = {f"search_{k}": v for k, v in ep.to_json().items()}
    counts = run_setting_counts([row])
    assert (counts["no lookup"], counts["capped"], counts["no tool call"]) == (1, 1, 1)


def test_malformed_calls_are_counted_and_are_no_lookup(tmp_path):
    fake = Scripted([("grep", {"regex": "Ferrari"}), ("open", {"path": "x.md"}), ("grep", {"pattern": "Ferrari"})])
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=5)
    ep = a.episode
    assert choices(fake) == ["required", "required", "required", "auto"]  # two bad calls looked nothing up
    assert (ep.malformed_calls, ep.tool_errors, ep.tool_calls, ep.looked_up) == (2, 2, 3, True)


def test_a_well_formed_call_that_fails_is_not_malformed(tmp_path):
    h = center(store(tmp_path))
    r = h.call("view", {"path": "nowhere.md"})
    assert not r.ok and not r.malformed and h.malformed == 0 and h.errors == 1
    r = h.call("view", {"path": 3})
    assert not r.ok and r.malformed and h.malformed == 1


def test_a_grammar_constrained_model_always_looks_up_first(tmp_path):
    fake = Scripted(["ANSWER: a guess"], honour_required=True)
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=3)
    assert a.episode.refused_answers == 0 and a.episode.rounds == 1 and a.episode.looked_up


def test_an_empty_final_reply_is_counted(tmp_path):
    fake = Scripted([("grep", {"pattern": "Ferrari"}), ""])
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=3)
    assert a.episode.no_answer and a.episode.looked_up


def test_closed_book_has_no_tools_and_no_tool_choice(tmp_path):
    from tailmem.fsmem.tools.base import Harness

    fake = Scripted([])
    a = answer_model(fake, "What did Calvin buy?", Harness("none"), "closed_book", max_rounds=1)
    assert choices(fake) == [None] and a.episode.looked_up is None and not a.episode.no_lookup


def test_builder_rounds_send_no_tool_choice_unless_asked(tmp_path):
    s = store(tmp_path)
    fake = Scripted([("view", {"path": ""})])
    loop.run(fake, "builder", "sys", "chunk", management(s), max_rounds=3, final_answer_on_cap=False)
    assert choices(fake) == [None, None]  # unchanged requests for a big model's free build episodes


def test_model_builder_must_write_before_it_stops(tmp_path):
    s = store(tmp_path)
    chunk = Chunk("S04-1", 4, "1:00 pm on 1 May, 2023", (Turn("D4:1", "Dave", "I opened my own shop!"),))
    fake = Scripted(
        [
            "Done.",
            (
                "append_section",
                {
                    "path": "people/dave.md",
                    "heading": "1 May, 2023 (session 4)",
                    "text": "- [D4:1] Dave opened a shop",
                    "description": "Dave",
                },
            ),
        ]
    )
    ep = builder.integrate_model(fake, chunk, management(s), max_rounds=3)
    assert choices(fake) == ["required", "required", "auto"] and ep.refused_answers == 1
    assert "opened a shop" in s.read("people/dave.md") and ep.looked_up is None  # not an answering role


def test_the_reorganizer_may_reply_done_without_a_call(tmp_path):
    fake = Scripted(["DONE"])
    eps = reorganizer.reorganize_model(fake, management(store(tmp_path)), "preserve", max_rounds=3, passes=2)
    assert len(eps) == 1 and choices(fake) == [None]


def test_cap_counts_refusals_and_rounds_together(tmp_path):
    fake = Scripted(["guess", ("grep", {"pattern": "Ferrari"}), ("grep", {"pattern": "488"})])
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=2)
    assert (a.episode.refused_answers, a.episode.rounds, a.episode.capped) == (1, 1, True)
    assert len(fake.requests) == 3 and fake.requests[-1]["tools"] is None


# -- the embedded model's compact forms ------------------------------------------------------------------------
@pytest.mark.parametrize(("backend", "small"), [("instruct", True), ("openai", False), ("fake", False)])
def test_compact_is_the_instruct_backend(backend, small):
    assert compact(Scripted([], backend=backend)) is small
    assert compact(None) is False


def test_replaying_instruct_calls_is_compact_too():
    class Settings:
        recorded_backend = "instruct"

    fake = Scripted([], backend="replay")
    fake.settings = Settings()
    assert compact(fake)


def test_instruct_gets_compact_tool_forms_and_their_defaults(tmp_path):
    h = center(store(tmp_path))
    fake = Scripted([("grep", {"pattern": "Ferrari"})], backend="instruct")
    answer_model(fake, "What did Calvin buy?", h, "filesystem", max_rounds=3)
    grep = next(t["function"] for t in fake.requests[0]["tools"] if t["function"]["name"] == "grep")
    assert list(grep["parameters"]["properties"]) == ["pattern"] and grep["parameters"]["required"] == ["pattern"]
    view = next(t["function"] for t in fake.requests[0]["tools"] if t["function"]["name"] == "view")
    assert list(view["parameters"]["properties"]) == ["path"]
    assert h.trace[0][1] == {"max_results": COMPACT_GREP_RESULTS, "sections": True, "pattern": "Ferrari"}
    tool_output = fake.requests[1]["messages"][-1]["content"]
    assert tool_output.startswith("== people/calvin.md # 25 May, 2023 (session 3)\npeople/calvin.md:5:")


def test_other_backends_get_the_full_tool_forms(tmp_path):
    h = center(store(tmp_path))
    fake = Scripted([("grep", {"pattern": "Ferrari"})])
    answer_model(fake, "What did Calvin buy?", h, "filesystem", max_rounds=3)
    assert fake.requests[0]["tools"] == h.schemas()
    assert h.trace[0][1] == {"pattern": "Ferrari"}


def test_compact_search_prompt_carries_the_file_list_first(tmp_path):
    h = center(store(tmp_path))
    small = search_prompt(Scripted([], backend="instruct"), "filesystem", h)
    assert "people/calvin.md" in small and "What Calvin did, by date" in small and "$tree" not in small
    assert len(small) < len(search_prompt(Scripted([]), "filesystem", h)) + 400
    assert h.calls == 0  # the file list is not charged to the agent's reads
    assert "retrieve" in search_prompt(Scripted([], backend="instruct"), "chunks", h)
    big = search_prompt(Scripted([]), "filesystem", h)
    assert "Survey the tree once" in big and "people/calvin.md" not in big


def test_compact_search_prompt_needs_the_center_tools(tmp_path):
    from tailmem.fsmem.tools.base import Harness

    bash_only = Harness("shell")
    bash_only.add(center(store(tmp_path)).tools["toc"])  # neither grep nor view
    assert search_prompt(Scripted([], backend="instruct"), "filesystem", bash_only) == search_prompt(
        Scripted([]), "filesystem", bash_only
    )


def test_compact_builder_prompt_and_heading(tmp_path):
    s = store(tmp_path)
    chunk = Chunk("S04-1", 4, "1:00 pm on 1 May, 2023", (Turn("D4:1", "Dave", "I opened my own shop!"),))
    fake = Scripted(
        [
            (
                "append_section",
                {
                    "path": "people/dave.md",
                    "heading": "1 May, 2023 (session 4)",
                    "text": "- [D4:1] Dave opened a shop",
                    "description": "Dave",
                },
            )
        ],
        backend="instruct",
    )
    builder.integrate_model(fake, chunk, management(s), max_rounds=1)
    system, user = fake.requests[0]["messages"][0]["content"], fake.requests[0]["messages"][1]["content"]
    assert "append_section" in system and len(system) < 1500
    assert user.endswith("Heading for this chunk's facts: 1 May, 2023 (session 4)")
    assert len(fake.requests) == 1  # at a cap of 1 the episode ends after its write


def test_the_small_builder_is_offered_append_section_only_and_the_reorganizer_keeps_its_tools(tmp_path):
    """The compact build prompt asks for append_section calls only; the six other write tools' schemas were a third
    of the smoke slice's one build prompt (1,849 tokens, 1,209 without them). The reorganizer renames, merges and
    deletes: it keeps them."""
    s = store(tmp_path)
    chunk = Chunk("S04-1", 4, "1:00 pm on 1 May, 2023", (Turn("D4:1", "Dave", "I opened my own shop!"),))
    fake = Scripted(["DONE"], backend="instruct")
    builder.integrate_model(fake, chunk, management(s), max_rounds=1)
    assert [t["function"]["name"] for t in fake.requests[0]["tools"]] == ["append_section"]
    big = Scripted(["DONE"])
    builder.integrate_model(big, chunk, management(s), max_rounds=1)
    assert len(big.requests[0]["tools"]) == len(management(s).tools)  # a large model keeps every write tool
    fake = Scripted(["DONE"], backend="instruct")
    reorganizer.reorganize_model(fake, management(store(tmp_path / "r")), "preserve", max_rounds=1, passes=1)
    offered = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert {"rename", "delete", "str_replace", "append_section"} <= offered


def test_run_setting_columns_include_the_loop_protocol():
    labels = [label for label, _ in RUN_SETTING_COLUMNS]
    assert {"no lookup", "malformed calls", "capped", "no answer"} <= set(labels)


def test_grep_sections_names_each_hits_heading_once(tmp_path):
    from tailmem.fsmem.tools.reading import grep

    s = Store(tmp_path / "g")
    management(s).call(
        "create",
        {
            "path": "a.md",
            "description": "a",
            "content": "# 1 May, 2023\ncar one\ncar two\n# 2 May, 2023\nno\ncar three\n",
        },
    )
    out = grep(s, "car", sections=True, max_results=2)
    assert out.splitlines() == [
        "== a.md # 1 May, 2023",
        "a.md:5:car one",
        "a.md:6:car two",
        "[1 more matches not shown]",
    ]
    assert grep(s, "three", sections=True).splitlines() == ["== a.md # 2 May, 2023", "a.md:9:car three"]
    assert grep(s, "car") == "a.md:5:car one\na.md:6:car two\na.md:9:car three"  # the default is unchanged


def test_a_search_that_matched_nothing_is_no_lookup(tmp_path):
    fake = Scripted([("grep", {"pattern": "Lamborghini"}), "ANSWER: not found", ("grep", {"pattern": "Ferrari"})])
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=5)
    assert choices(fake) == ["required", "required", "required", "auto"] and a.episode.refused_answers == 1
    assert a.text == "a Ferrari" and a.episode.looked_up


def test_a_phrase_that_matches_nothing_gets_a_hint(tmp_path):
    h = center(store(tmp_path))
    assert "grep a single word" in h.call("grep", {"pattern": "Calvin bought a car"}).output
    assert "grep a single word" not in h.call("grep", {"pattern": "Lambo|Porsche"}).output


def test_the_embedded_judge_reads_a_shorter_citation_excerpt(tmp_path):
    from tailmem.fsmem.agents.judge import CITED_CHARS_COMPACT, judge

    s = Store(tmp_path / "j")
    management(s).call("create", {"path": "big.md", "description": "big", "content": "fact line\n" * 2000})

    class Judge(Scripted):
        def chat(self, messages, tools=None, task=None, **params):
            self.requests.append({"messages": list(messages), "tools": tools, "params": params})
            return ChatResponse('{"correct": 1, "citation": 1}', (), Usage(5, 0, 2), self.model, False, 0.0)

    sizes = {}
    for backend in ("instruct", "fake"):
        fake = Judge([], backend=backend)
        v = judge(fake, "q?", "gold", "gold", ("big.md:3",), s)
        assert (v.correct, v.citation) == (1.0, 1.0)
        sizes[backend] = len(fake.requests[1]["messages"][0]["content"])
    assert sizes["instruct"] < CITED_CHARS_COMPACT + 1000 < sizes["fake"]


def test_at_the_cap_the_embedded_model_keeps_its_tools_with_tool_choice_none(tmp_path):
    fake = Scripted([("grep", {"pattern": "Ferrari"})] * 5, backend="instruct")
    a = answer_model(fake, "What did Calvin buy?", center(store(tmp_path)), "filesystem", max_rounds=2)
    last = fake.requests[-1]
    assert a.episode.capped and last["params"] == {"tool_choice": "none"} and last["tools"] == fake.requests[0]["tools"]
    assert a.text == "a Ferrari" and len(fake.requests) == 3
