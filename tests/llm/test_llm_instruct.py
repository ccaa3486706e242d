"""The embedded instruct backend: grammars built from real harness tool lists compile in llama.cpp; with the model,
a round is a well-formed call of an offered tool or an answer, the shared prefix is reused (and counted), the call
cache answers a rerun, and an overflowing prompt fails naming role, stage and token counts."""

import json

import pytest

from llm_testkit import MODEL_THREADS
from tailmem.errors import LLMError
from tailmem.llm.backends.instruct import available, call_schema, grammar_text, parse_reply
from tailmem.llm.group import shipped_tree

pytestmark = pytest.mark.skipif(not available(), reason="the `local` extra (llama-cpp-python) is not installed")

READ = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "enum": ["/a.md", "/b.md"]}},
            "required": ["path"],
        },
    },
}


def test_grammars_of_every_search_harness_compile(tmp_path):
    from llama_cpp import LlamaGrammar

    from tailmem.fsmem.store import Store
    from tailmem.fsmem.tools.center import center, center_bm25

    store = Store(tmp_path / "store")
    store.write("notes/a.md", "---\ndescription: a\n---\n# A\nline\n")
    for harness in (center(store), center_bm25(store)):
        tools = harness.schemas()
        for choice in ("auto", "required"):
            LlamaGrammar.from_string(grammar_text(tools, choice), verbose=False)  # raises on a bad grammar
    assert "call" not in grammar_text(tools, "none") and grammar_text(None, "auto") is None


def test_call_schema_names_each_tool_once():
    two = [
        READ,
        {
            "type": "function",
            "function": {
                "name": "grep",
                "parameters": {
                    "type": "object",
                    "properties": {"pattern": {"type": "string"}},
                    "required": ["pattern"],
                },
            },
        },
    ]
    schema = call_schema(two)
    assert [o["properties"]["name"]["const"] for o in schema["oneOf"]] == ["read_file", "grep"]


def test_parse_reply_keeps_only_calls_of_offered_tools():
    text = '<tool_call>\n{"name": "read_file", "arguments": {"path": "/a.md"}}\n</tool_call>'
    content, calls = parse_reply(text, [READ])
    assert content is None and calls[0].name == "read_file" and calls[0].arguments == {"path": "/a.md"}
    assert parse_reply(text.replace("read_file", "rm"), [READ])[1] == ()  # not offered: stays text
    assert parse_reply("Lisbon.", [READ]) == ("Lisbon.", ())


def embedded_cfg(tmp_path, n_ctx=2048):
    role = {
        "backend": "instruct",
        "model": "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "n_ctx": n_ctx,
        "n_threads": MODEL_THREADS,
        "max_output_tokens": 48,
    }
    return {"llm": shipped_tree(cache_path=str(tmp_path / "c.sqlite"), prices={}, roles={"searcher": role})}


@pytest.mark.slow
def test_tool_round_prefix_reuse_kv_from_disk_cache_and_overflow(tmp_path, monkeypatch):
    """One tool round and its answer; a fresh llama.cpp context (another role: its own context, as another job's
    process would have) reads the saved KV of the shared system prompt and tools instead of evaluating them, and
    samples the same call; the call cache answers a rerun; an overflowing prompt names role, stage and tokens."""
    from tailmem.llm import get_client
    from tailmem.llm.backends import kv_prefix

    monkeypatch.setattr(kv_prefix, "folder", lambda: tmp_path / "kv")
    client = get_client(embedded_cfg(tmp_path), "searcher", "test")
    messages = [
        {
            "role": "system",
            "content": "You answer from a store of files: /a.md holds Alice's trips, /b.md "
            "Bob's pets. Look the answer up first, then reply with the answer alone.",  # 18 tokens, not 48
        },
        {"role": "user", "content": "Where did Alice go in 2021?"},
    ]
    first = client.chat(messages, tools=[READ], tool_choice="required")
    assert first.content is None and first.tool_calls[0].name == "read_file"
    assert first.tool_calls[0].arguments["path"] in ("/a.md", "/b.md")  # the grammar allows nothing else
    assert first.usage.cached_tokens == 0 and len(list((tmp_path / "kv").glob("*.kv"))) == 1
    other = embedded_cfg(tmp_path / "other")  # its own call cache, so the call is really made
    other["llm"]["roles"]["judge"] = other["llm"]["roles"].pop("searcher")
    fresh = get_client(other, "judge", "test").chat(messages, tools=[READ], tool_choice="required")
    assert not fresh.from_cache
    assert fresh.usage.cached_tokens >= kv_prefix.MIN_TOKENS  # the system prompt and tools came from disk
    assert fresh.tool_calls == first.tool_calls
    call = first.tool_calls[0]
    messages += [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call.id, "content": "2021: Alice went to Lisbon. 2022: Oslo."},
    ]
    second = client.chat(messages, tools=[READ], tool_choice="none")
    assert second.tool_calls == () and "Lisbon" in second.content
    # the second prompt extends the first: only the appended turns were evaluated, and the model's own call kept
    # its tokens (grammar-sampled tokens differ from the re-rendered text's tokenization: `{` `"name` vs `{"` `name`)
    assert second.usage.cached_tokens >= first.usage.prompt_tokens + first.usage.completion_tokens - 2
    assert client.chat(messages, tools=[READ], tool_choice="none").from_cache and client.hits == 1
    assert 0 <= client.choose("Which city is in Portugal?", ["Oslo", "Lisbon", "Paris"]) < 3

    small = get_client(embedded_cfg(tmp_path / "small", n_ctx=256), "searcher", "overflow_stage")
    with pytest.raises(LLMError, match=r"stage overflow_stage, role searcher: the prompt is \d+ tokens"):
        small.chat([{"role": "user", "content": "word " * 400}])


@pytest.mark.slow
def test_two_kinds_of_prompt_that_alternate_each_keep_their_prefix(tmp_path):
    """Paper 2's judge grades correctness, then citation, answer after answer. With one context per role each
    call evicted the other's KV, so the next correctness verdict reused only the chat template's first tokens
    (24 of 325 measured in the default model slice); each kind now keeps its own context."""
    from tailmem.llm import get_client

    client = get_client(embedded_cfg(tmp_path), "searcher", "test")
    grade = "You grade an answer against the truth: reply 1 if it states the same fact, else 0. " * 3
    cite = "You grade whether the cited lines support an answer: reply 1 if they do, else 0. " * 3

    def ask(instruction, case):
        return client.chat([{"role": "user", "content": f"{instruction}\n{case}"}], answer_choices=["0", "1"])

    ask(grade, "Truth: Lisbon. Answer: Lisbon.")
    ask(cite, "Cited: 'Alice flew to Lisbon.' Answer: Lisbon.")
    again = ask(grade, "Truth: Oslo. Answer: Bergen.")
    shared = len(client._impl.llm.tokenize(grade.encode(), add_bos=False))
    assert again.usage.cached_tokens >= shared, again.usage
