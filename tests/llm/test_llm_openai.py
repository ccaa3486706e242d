"""The openai backend against a real HTTP server on 127.0.0.1: tool calls, usage, retries, concurrency, choose."""

import time

import pytest

from llm_testkit import FakeServer, llm_cfg
from tailmem.errors import ConfigError, LLMError
from tailmem.llm import ChatResponse, ToolCall, get_client

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "search the store",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]


def user(text):
    return [{"role": "user", "content": text}]


def test_tool_calls_and_usage_are_read(server, tmp_path):
    client = get_client(llm_cfg(tmp_path, server.base_url), "searcher", "test")
    r = client.chat(user("where is the key?"), tools=TOOLS)
    assert isinstance(r, ChatResponse) and not r.from_cache
    assert r.tool_calls == (ToolCall(id=r.tool_calls[0].id, name="search", arguments={"query": "where is the key?"}),)
    assert r.usage.cached_tokens == r.usage.prompt_tokens // 2 > 0 and r.usage.completion_tokens >= 1
    (row,) = client.cache.stats()
    assert (row.role, row.stage, row.misses, row.prompt_tokens) == ("searcher", "test", 1, r.usage.prompt_tokens)
    expected = (r.usage.uncached_tokens * 0.75 + r.usage.cached_tokens * 0.075 + r.usage.completion_tokens * 4.5) / 1e6
    assert row.dollars == pytest.approx(expected)


def test_retries_after_429_and_500(server, tmp_path):
    server.script = [429, 500]
    client = get_client(llm_cfg(tmp_path, server.base_url), "policy", "test")
    r = client.chat(user("hello"))
    assert r.content.startswith("answer")
    assert server.statuses == {429: 1, 500: 1, 200: 1}
    assert client.retries == 2


def test_gives_up_after_the_configured_retries(server, tmp_path):
    server.script = [503] * 10
    client = get_client(llm_cfg(tmp_path, server.base_url, retries=2), "judge", "test")
    with pytest.raises(LLMError, match=r"role judge.*3 attempts"):
        client.chat(user("hello"))
    assert server.requests == 3


def test_a_client_error_is_not_retried(server, tmp_path):
    server.script = [400]
    client = get_client(llm_cfg(tmp_path, server.base_url), "judge", "test")
    with pytest.raises(LLMError, match="role judge"):
        client.chat(user("hello"))
    assert server.requests == 1


def test_chat_many_overlaps_calls_and_keeps_order(tmp_path):
    n, latency = 16, 0.2
    with FakeServer(latency_s=latency) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, concurrency=8), "builder", "test")
        start = time.perf_counter()
        out = client.chat_many([{"messages": user(f"q{i}")} for i in range(n)])
        elapsed = time.perf_counter() - start
    assert elapsed < 0.5 * n * latency, elapsed  # sequential would take n * latency = 3.2 s
    assert server.max_active > 1
    assert [
        server.answer({"model": "m", "messages": user(f"q{i}")})["choices"][0]["message"]["content"] for i in range(n)
    ] == [r.content for r in out]


def test_cache_hit_makes_no_call(server, tmp_path):
    client = get_client(llm_cfg(tmp_path, server.base_url), "policy", "test")
    first = client.chat(user("same"), temperature=0)
    second = client.chat(user("same"), temperature=0)
    assert server.requests == 1 and second.from_cache and second.content == first.content
    assert second.usage == first.usage
    client.chat(user("same"), temperature=1)  # other params: another request
    assert server.requests == 2
    (row,) = client.cache.stats()
    assert (row.hits, row.misses, row.calls) == (1, 2, 2)


def test_choose_reads_the_number_and_reasks(tmp_path):
    def reply(body):
        asked_again = len(body["messages"]) > 1
        return "Option 3." if asked_again else "I am not sure."

    with FakeServer(reply=reply) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "policy", "test")
        assert client.choose("Which door?", ["north", "south", "east"]) == 2
        assert server.requests == 2


def test_choose_always_returns_a_valid_option(tmp_path):
    with FakeServer(reply=lambda body: "99, the south one") as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "policy", "test")
        assert client.choose("Which door?", ["north door", "south door"]) == 1  # by word overlap
        assert client.choose("Only one", ["stay"]) == 0 and server.requests == 2


def test_replay_answers_from_the_cache_and_names_a_miss(server, tmp_path):
    cfg = llm_cfg(tmp_path, server.base_url)
    live = get_client(cfg, "judge", "record").chat(user("recorded"))
    roles = {r: {"backend": "replay", "model": "test-model", "recorded_backend": "openai"} for r in cfg["llm"]["roles"]}
    replay = get_client(llm_cfg(tmp_path, "http://127.0.0.1:9/v1", roles=roles), "judge", "replay-stage")
    again = replay.chat(user("recorded"))
    assert again.content == live.content and again.from_cache
    with pytest.raises(LLMError, match=r"replay miss in stage replay-stage, role judge: request [0-9a-f]{64}"):
        replay.chat(user("never recorded"))
    assert server.requests == 1


def test_budget_guard_stops_new_calls_and_keeps_recorded_ones(server, tmp_path):
    cfg = llm_cfg(tmp_path, server.base_url, budget={"max_dollars": None, "max_tokens": 10})
    client = get_client(cfg, "executor", "test")
    client.chat(user("a long enough prompt to spend the whole token budget at once"))
    with pytest.raises(LLMError, match=r"stage test.*llm.budget.max_tokens=10"):
        client.chat(user("one more"))
    assert server.requests == 1 and len(client.cache) == 1
    assert client.chat(user("a long enough prompt to spend the whole token budget at once")).from_cache


def test_dollar_budget(server, tmp_path):
    cfg = llm_cfg(tmp_path, server.base_url, budget={"max_dollars": 1e-9, "max_tokens": None})
    client = get_client(cfg, "executor", "test")
    client.chat(user("first"))
    with pytest.raises(LLMError, match="max_dollars"):
        client.chat_many([{"messages": user("second")}])


def test_unpriced_model_is_a_config_error(server, tmp_path):
    cfg = llm_cfg(tmp_path, server.base_url, prices={})
    with pytest.raises(ConfigError, match="llm.prices has no entry for model 'test-model'"):
        get_client(cfg, "policy", "test")
