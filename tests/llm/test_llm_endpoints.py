"""Issue 14 against a loopback server that validates parameters as the OpenAI API does: one test per finding.

Finding 1: reasoning models refuse max_tokens and temperature 0 -> parameters by family, no stage passes its own.
Finding 2: paper 2's run settings -> caps, effort, temperature, compaction, unclipped views, all from config.
Finding 3: paying twice -> single flight in process, pending claim across processes, `sent` counted.
Finding 4: the cache ignored the endpoint -> base URL + served model id in the key, endpoint_key to share.
Finding 5: loop and judge fragility -> content "", no retry of validation errors, no-tool-call and short
prompt flagged.
"""

import logging
import os

import pytest
from hydra import compose, initialize_config_dir
from test_llm_config import CONFIGS

from llm_testkit import FakeServer, llm_cfg
from tailmem.errors import LLMError
from tailmem.llm import get_client
from tailmem.llm.group import roles, settings
from tailmem.llm.params import DEFAULT_FAMILIES, families, family_of, refused_parameter

PRICE = {"input": 0.75, "cached_input": 0.075, "output": 4.50}


def reasoning_cfg(tmp_path, base_url, **over):
    """Every role on gpt-5.4-mini (a reasoning model by the default table), efforts as paper 2."""
    roles = {
        r: {"backend": "openai", "model": "gpt-5.4-mini"}
        for r in ("policy", "predictor", "builder", "searcher", "executor", "judge")
    }
    roles["searcher"]["reasoning_effort"] = "high"
    cfg = llm_cfg(tmp_path, base_url, roles=roles, prices={"gpt-5.4-mini": PRICE}, **over)
    return cfg


def user(text):
    return [{"role": "user", "content": text}]


# -- finding 1: parameters by model family -------------------------------------------------------------------------
def test_default_table_sorts_openai_models_into_families():
    # the OpenAI model list's naming: o-series and gpt-5 reason, gpt-5 chat variants and gpt-4.1 / gpt-4o do not
    assert [family_of(m, DEFAULT_FAMILIES) for m in ("gpt-5.4-mini", "o3", "o4-mini", "openai/gpt-5")] == [
        "reasoning"
    ] * 4
    assert [family_of(m, DEFAULT_FAMILIES) for m in ("gpt-5-chat-latest", "gpt-4.1", "gpt-4o", "Qwen/Qwen3-8B")] == [
        "standard"
    ] * 4
    assert family_of("gpt-4o", DEFAULT_FAMILIES, override="reasoning") == "reasoning"


def test_reasoning_model_gets_completion_cap_and_effort_and_no_temperature(tmp_path):
    with FakeServer(reasoning=True) as server:
        client = get_client(reasoning_cfg(tmp_path, server.base_url), "searcher", "test")
        assert client.family == "reasoning"
        assert client.chat(user("hi")).content.startswith("answer")
    (body,) = server.bodies
    assert body["max_completion_tokens"] == 8192 and body["reasoning_effort"] == "high"
    assert "temperature" not in body and "max_tokens" not in body


def test_standard_model_gets_temperature_zero_and_max_tokens(server, tmp_path):
    client = get_client(llm_cfg(tmp_path, server.base_url), "judge", "test")
    client.chat(user("hi"))
    (body,) = server.bodies
    assert (body["temperature"], body["max_tokens"]) == (0.0, 8192) and "reasoning_effort" not in body


def test_stages_pass_no_sampling_parameters_of_their_own(tmp_path):
    """LongMemEval answer + judge and the controller study's chat predictor, against a reasoning model."""
    from tailmem.control.predict import ModelPredictor
    from tailmem.data.longmemeval import Question
    from tailmem.haystack.answer import ModelAnswerer
    from tailmem.haystack.judge import judge_many

    with FakeServer(reasoning=True, reply=lambda body: "yes S3") as server:
        cfg = reasoning_cfg(tmp_path, server.base_url)
        answerer = ModelAnswerer(get_client(cfg, "searcher", "longmemeval"), seed=1)
        (a,) = answerer.answer_many([answerer.request("S0: moved to Tokyo", "Where?", "2023/01/01")])
        q = Question(
            qid="q1",
            qtype="multi-session",
            question="Where?",
            date="2023/01/01",
            answer="Tokyo",
            answer_session_ids=(),
            sessions=(),
        )
        judge_many(get_client(cfg, "judge", "longmemeval"), [q], [a.text])
        p = ModelPredictor(get_client(cfg, "predictor", "control")).predict("S1 -> S3", 1, "room", "go")
    assert p.state == 3 and server.statuses == {200: 3}
    assert all(
        "max_tokens" not in b and "temperature" not in b and b["max_completion_tokens"] == 8192 for b in server.bodies
    )


def test_a_refused_parameter_names_the_config_key_and_is_not_retried(tmp_path):
    with FakeServer(reasoning=True) as server:
        cfg = reasoning_cfg(tmp_path, server.base_url)
        cfg["llm"]["roles"]["judge"]["family"] = "standard"  # wrong on purpose: sends temperature and max_tokens
        client = get_client(cfg, "judge", "test")
        with pytest.raises(LLMError, match=r"'max_tokens'.*change llm\.roles\.judge\.family"):
            client.chat(user("hi"))
        assert server.requests == 1 and client.sent == 1
        cfg["llm"]["roles"]["judge"] = {"backend": "openai", "model": "gpt-5.4-mini", "params": {"temperature": 0}}
        with pytest.raises(LLMError, match=r"'temperature'.*change llm\.roles\.judge\.params\.temperature"):
            get_client(cfg, "judge", "test2").chat(user("hi"))
    assert refused_parameter("Unrecognized request argument supplied: reasoning_effort") == "reasoning_effort"


# -- finding 2: paper 2's run settings -----------------------------------------------------------------------------
def test_paper2_run_settings_are_the_shipped_defaults(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        s = settings(compose("config", overrides=["llm=openai"]))
    r = roles(s)
    assert (r["searcher"].max_output_tokens, r["judge"].max_output_tokens) == (8192, 8192)
    assert r["builder"].max_output_tokens == 32768 and r["builder"].task_max_output_tokens == {"restructure": 100000}
    assert {k for k in r if r[k].reasoning_effort == "high"} == {"builder", "searcher", "executor"}
    assert r["judge"].temperature == 0.0 and r["judge"].compact_prompt_tokens == 96000
    assert r["searcher"].tool_output_max_chars >= 400_000 and families(s) == DEFAULT_FAMILIES


def test_restructuring_gets_its_own_output_cap(tmp_path):
    from tailmem.fsmem.agents.reorganizer import reorganize_model
    from tailmem.fsmem.store import Store
    from tailmem.fsmem.tools.management import management

    with FakeServer(reasoning=True, agent=lambda body: {"role": "assistant", "content": "DONE"}) as server:
        cfg = reasoning_cfg(tmp_path, server.base_url)
        cfg["llm"]["roles"]["builder"].update(max_output_tokens=32768, task_max_output_tokens={"restructure": 100000})
        client = get_client(cfg, "builder", "test")
        reorganize_model(client, management(Store(tmp_path / "s")), "preserve", max_rounds=3, passes=1)
        client.chat(user("curate"))
    assert [b["max_completion_tokens"] for b in server.bodies] == [100000, 32768]


# -- finding 3: pay once -------------------------------------------------------------------------------------------
def test_identical_requests_in_flight_share_one_call(tmp_path):
    with FakeServer(latency_s=0.2) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, concurrency=8), "judge", "test")
        out = client.chat_many([{"messages": user("same")} for _ in range(8)] + [{"messages": user("other")}])
    assert server.requests == 2 and len({r.content for r in out[:8]}) == 1
    assert sum(not r.from_cache for r in out) == 2
    (row,) = client.cache.stats()
    assert (row.sent, row.misses, row.hits) == (2, 2, 7)


def test_a_failed_call_fails_its_twins_once(tmp_path):
    with FakeServer(latency_s=0.2) as server:
        server.script = [400]
        client = get_client(llm_cfg(tmp_path, server.base_url, concurrency=4), "judge", "test")
        with pytest.raises(LLMError, match="role judge"):
            client.chat_many([{"messages": user("same")} for _ in range(4)])
    assert server.requests == 1


def test_sent_counts_every_request_including_retries(tmp_path):
    with FakeServer() as server:
        server.script = [503, 429]
        client = get_client(llm_cfg(tmp_path, server.base_url), "judge", "test")
        client.chat(user("hi"))
    (row,) = client.cache.stats()
    assert (row.sent, row.misses, server.requests) == (3, 1, 3)


@pytest.mark.slow
def test_processes_sharing_a_cache_pay_once(tmp_path):
    """The issue's 4 processes on one cache: every distinct body sent once, twins wait for the answer."""
    from test_llm_cache import run_stage

    with FakeServer(latency_s=0.05) as server:
        procs = [
            run_stage(tmp_path / "shared.sqlite", server.base_url, tmp_path / f"o{i}.json", 20, "--many")
            for i in range(4)
        ]
        assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    assert server.requests == 20 and max(server.by_prompt.values()) == 1
    from tailmem.llm.cache import CallCache

    (row,) = CallCache(tmp_path / "shared.sqlite").stats()
    assert (row.sent, row.misses, row.hits + row.misses) == (20, 20, 80)


def test_a_dead_claim_is_taken_over(tmp_path):
    import subprocess
    import sys

    from tailmem.llm.cache import CallCache

    cache = CallCache(tmp_path / "c.sqlite")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)  # a process that has exited
    import socket
    import time

    cache._conn().execute("INSERT INTO pending VALUES (?,?,?,?)", ("k", socket.gethostname(), pid, time.time()))
    assert cache.wait("k") is None and cache.claim("k") == "owner"
    # a live process (a reused pid) holding a claim older than stale_s is abandoned too; a fresh one is waited for
    cache._conn().execute(
        "REPLACE INTO pending VALUES (?,?,?,?)", ("k", socket.gethostname(), os.getppid(), time.time())
    )
    assert cache.claim("k") == "wait"
    cache._conn().execute(
        "REPLACE INTO pending VALUES (?,?,?,?)",
        ("k", socket.gethostname(), os.getppid(), time.time() - cache.stale_s - 1),
    )
    assert cache.claim("k") == "owner"


# -- finding 4: the endpoint is part of the key --------------------------------------------------------------------
def test_another_endpoint_is_not_answered_from_this_ones_recordings(tmp_path):
    with (
        FakeServer(served_id="model-a.gguf", reply=lambda b: "from A") as a,
        FakeServer(served_id="model-a.gguf", reply=lambda b: "from B") as b,
    ):
        assert get_client(llm_cfg(tmp_path, a.base_url), "judge", "t").chat(user("q")).content == "from A"
        assert get_client(llm_cfg(tmp_path, b.base_url), "judge", "t").chat(user("q")).content == "from B"
        shared = dict(endpoint_key="my-shared-endpoint")
        assert get_client(llm_cfg(tmp_path, a.base_url, **shared), "judge", "t").chat(user("q")).content == "from A"
        again = get_client(llm_cfg(tmp_path, b.base_url, **shared), "judge", "t").chat(user("q"))
        assert (again.content, again.from_cache) == ("from A", True)  # shared on purpose
    assert (a.requests, b.requests) == (2, 1)


def test_same_url_serving_another_model_is_a_miss(tmp_path):
    with FakeServer(served_id="gemma-chatml", reply=lambda b: "first") as s:
        get_client(llm_cfg(tmp_path, s.base_url), "judge", "t").chat(user("q"))
        s.served_id = "gemma-jinja"  # "restarted" with another model id
        assert get_client(llm_cfg(tmp_path, s.base_url), "judge", "t").chat(user("q")).from_cache is False
    assert s.requests == 2


def test_replay_finds_the_recorded_endpoint_without_the_network(server, tmp_path):
    cfg = llm_cfg(tmp_path, server.base_url)
    live = get_client(cfg, "judge", "record").chat(user("recorded"))
    roles = {r: {"backend": "replay", "model": "test-model", "recorded_backend": "openai"} for r in cfg["llm"]["roles"]}
    again = get_client(llm_cfg(tmp_path, server.base_url, roles=roles), "judge", "replay").chat(user("recorded"))
    assert again.content == live.content and again.from_cache and server.requests == 1


# -- finding 5: robust loops ---------------------------------------------------------------------------------------
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "search",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]


def test_a_validation_500_is_not_retried(tmp_path):
    with FakeServer(null_content_500=True) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, retries=5), "searcher", "test")
        bad = [
            *user("q"),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "nothing"},
        ]
        with pytest.raises(LLMError, match="request rejected.*validation"):
            client.chat(bad, tools=TOOLS)
    assert server.requests == 1 and client.retries == 0


def test_the_tool_loop_sends_assistant_turns_every_server_accepts(tmp_path):
    from tailmem.fsmem.agents.searcher import answer_model
    from tailmem.fsmem.store import Store
    from tailmem.fsmem.tools.center import center

    with FakeServer(null_content_500=True) as server:  # tool call first, then a text answer
        client = get_client(llm_cfg(tmp_path, server.base_url), "searcher", "test")
        a = answer_model(client, "Where is the key?", center(Store(tmp_path / "s")), "filesystem", max_rounds=3)
    # the server's call ({"query": ...} to `view`) is malformed, so nothing was looked up: the answer after it is
    # refused (issue 28: never an answer before a lookup), the second call is malformed too, and the cap ends it
    assert (a.episode.rounds, a.episode.refused_answers, a.episode.malformed_calls) == (2, 1, 2)
    assert server.statuses == {200: 4} and a.episode.no_lookup
    assistant = [m for m in server.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert assistant[0]["content"] == "" and assistant[0]["tool_calls"]


def test_an_agent_that_never_calls_a_tool_is_warned_and_counted(tmp_path, caplog):
    from tailmem.fsmem.agents.searcher import answer_model
    from tailmem.fsmem.store import Store
    from tailmem.fsmem.tools.center import center

    with FakeServer(agent=lambda body: {"role": "assistant", "content": "ANSWER: Paris\nCITATIONS:"}) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "searcher", "test")
        with caplog.at_level(logging.WARNING):
            a = answer_model(client, "Where?", center(Store(tmp_path / "s")), "filesystem", max_rounds=3)
    assert a.episode.no_tool_call and a.episode.rounds == 0 and a.episode.to_json()["no_tool_call"] is True
    assert "without calling any of the 4 offered tools" in caplog.text


def test_billed_prompt_far_below_the_estimate_is_flagged(tmp_path, caplog):
    system = "You are a careful assistant who answers questions about a memory store. " * 20
    with FakeServer(drop_prompt=True) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "judge", "test")
        with caplog.at_level(logging.WARNING):
            client.chat([{"role": "system", "content": system}, *user("hi")])
            client.chat(user("short"))  # too small to judge
    assert client.short_prompts == 1 and "dropped part of the prompt" in caplog.text
    (row,) = client.cache.stats()
    assert row.short_prompts == 1


def test_the_tool_loop_compacts_past_the_threshold(tmp_path, caplog):
    """Each page is ~1,900 billed tokens; at a 6,000-token threshold the call that has read 4 pages triggers one
    compaction into a summary plus the last three turns, counted in the episode and logged."""
    from tailmem.fsmem.agents import loop
    from tailmem.fsmem.tools.base import Harness, Tool, params

    issued = []

    def agent(body):
        msgs = body["messages"]
        if msgs[-1]["content"].startswith("Your context is nearly full"):
            return {"role": "assistant", "content": "SUMMARY: read pages 1-n"}
        if len(issued) >= 6 or not body.get("tools"):
            return {"role": "assistant", "content": "ANSWER: done"}
        issued.append(1)
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{len(issued)}", "type": "function", "function": {"name": "page", "arguments": "{}"}}
            ],
        }

    h = Harness("pages")
    h.add(Tool("page", "a long page", params({}), lambda: "word " * 1500))
    with FakeServer(agent=agent) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, compact_prompt_tokens=6000), "searcher", "test")
        with caplog.at_level(logging.INFO):
            text, ep, messages = loop.run(client, "searcher", "sys", "the question", h, max_rounds=20)
    assert text == "ANSWER: done" and ep.rounds == 6 and ep.compactions == 1
    assert "compacted the transcript at 7" in caplog.text  # ~7,500 prompt tokens
    assert messages[1]["content"].startswith("the question") and "SUMMARY: read pages" in messages[1]["content"]
    (summary,) = [b for b in server.bodies if b["messages"][-1]["content"].startswith("Your context")]
    assert summary.get("tools") is None and len(summary["messages"]) == 2 + 2 * 5 + 1  # the whole transcript
    after = server.bodies[server.bodies.index(summary) + 1]["messages"]
    assert [m["role"] for m in after] == ["system", "user"] + ["assistant", "tool"] * 3  # the last three turns
    assert [m["tool_calls"][0]["id"] for m in after if m["role"] == "assistant"] == ["c3", "c4", "c5"]
    assert len(ep.calls) == 8  # 7 loop calls + the summary, all billed


def test_file_views_are_not_clipped_and_the_safety_cap_is_counted(tmp_path, caplog):
    from tailmem.fsmem.agents import loop
    from tailmem.fsmem.tools.base import Harness, Tool, params

    sizes = iter([50_000, 5_000])

    def agent(body):
        if sum(1 for m in body["messages"] if m["role"] == "tool") >= 2 or not body.get("tools"):
            return {"role": "assistant", "content": "ANSWER: ok"}
        return {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": f"c{len(body['messages'])}", "type": "function", "function": {"name": "view", "arguments": "{}"}}
            ],
        }

    h = Harness("files")
    h.add(Tool("view", "a file", params({}), lambda: "x" * next(sizes)))
    with FakeServer(agent=agent) as server:
        cfg = llm_cfg(tmp_path, server.base_url, tool_output_max_chars=20_000)
        with caplog.at_level(logging.WARNING):
            _, ep, messages = loop.run(get_client(cfg, "searcher", "t"), "searcher", "s", "u", h, max_rounds=5)
        tools = [m["content"] for m in messages if m["role"] == "tool"]
        assert ep.truncations == 1 and tools[0].endswith("[output truncated at 20000 of 50000 characters]")
        assert "cut at the safety cap" in caplog.text
        h2 = Harness("files")
        h2.add(Tool("view", "a file", params({}), lambda: "y" * 50_000))
        sizes = iter([50_000])
        _, ep2, messages2 = loop.run(
            get_client(llm_cfg(tmp_path / "2", server.base_url), "searcher", "t"),
            "searcher",
            "s",
            "u2",
            h2,
            max_rounds=1,
        )
    assert ep2.truncations == 0 and [len(m["content"]) for m in messages2 if m["role"] == "tool"] == [50_000]


# -- before paying ---------------------------------------------------------------------------------------------------
def test_llm_check_reports_each_role(tmp_path):
    from tailmem.llm.check import report, run_checks

    with FakeServer(reasoning=True) as server:
        cfg = reasoning_cfg(tmp_path, server.base_url)
        cfg["llm"]["roles"]["predictor"]["family"] = "standard"
        checks = {c.role: c for c in run_checks(cfg)}
    s = checks["searcher"]
    assert (s.family, s.accepted, s.context) == ("reasoning", "yes", "4096") and s.tools.startswith("yes")
    assert "0.75" in s.price and "reasoning_effort" in s.params
    assert not checks["predictor"].ok and "llm.roles.predictor.family" in checks["predictor"].accepted
    assert "searcher: openai gpt-5.4-mini (family reasoning)" in report(list(checks.values()))
    assert server.requests == 2 * 5 + 1  # two per accepted role, one for the refused one


def test_llm_cost_prices_measured_calls_with_the_paid_models(server, tmp_path):
    from tailmem.llm.estimate import estimate, measured, render

    cfg = llm_cfg(tmp_path, server.base_url)
    client = get_client(cfg, "searcher", "fsmem_answer")
    replies = [client.chat(user(f"question {i}")) for i in range(3)]
    rows = measured(tmp_path / "llm_cache.sqlite")
    paid = settings(
        llm_cfg(tmp_path, server.base_url, prices={"test-model": {"input": 2.0, "cached_input": 1.0, "output": 10.0}})
    )
    (line,) = estimate(rows, paid, {"fsmem_answer": 10})
    p = sum(r.usage.prompt_tokens for r in replies)
    c = sum(r.usage.cached_tokens for r in replies)
    o = sum(r.usage.completion_tokens for r in replies)
    assert line.calls == 30 and line.dollars == pytest.approx(10 * ((p - c) * 2.0 + c * 1.0 + o * 10.0) / 1e6)
    assert render([line]).endswith(f"about ${line.dollars:.2f} for 30 calls")


def test_llm_check_and_llm_cost_are_commands(tmp_path, capsys, monkeypatch):
    from tailmem.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(reasoning=True) as server:
        over = [
            "llm=openai",
            f"llm.base_url={server.base_url}",
            f"llm.cache_path={tmp_path}/c.sqlite",
            "llm.roles.policy.backend=programmatic",
            "llm.roles.predictor.backend=programmatic",
        ]
        assert main(["llm_check", *over]) == 0
        out = capsys.readouterr().out
        assert "searcher: openai gpt-5.4-mini (family reasoning)" in out and "accepted: yes" in out
        assert "policy" not in out  # programmatic roles send nothing
        assert main(["llm_check", *over, "+llm.roles.judge.family=standard"]) == 1
        assert "change llm.roles.judge.family" in capsys.readouterr().out
        get_client(
            reasoning_cfg(tmp_path, server.base_url, cache_path=str(tmp_path / "c.sqlite")), "judge", "longmemeval"
        ).chat(user("a question"))
    assert main(["llm_cost", "--db", str(tmp_path / "c.sqlite"), "--times", "longmemeval=100", *over]) == 0
    assert "about $" in capsys.readouterr().out
    assert main(["llm_cost", "--db", str(tmp_path / "c.sqlite"), "--times", "longmemeval"]) == 1


def test_unparsable_judge_replies_are_counted_not_silent(tmp_path, caplog):
    """fsmem's judge: a reply without the JSON verdict leaves the mean, so it is counted and logged."""
    from record_kit import placeholder
    from tailmem.fsmem.agents.judge import judge
    from tailmem.records.fsmem import FsmemBuild
    from tailmem.studies.fsmem.locomo import summarize

    replies = iter(['{"correct": 1}', "The answer looks right to me.", "I cannot tell.", '{"citation": 0.5}'])
    with FakeServer(reply=lambda body: next(replies)) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, concurrency=1), "judge", "test")
        with caplog.at_level(logging.WARNING):
            v1 = judge(client, "Q1?", "Tokyo", "Tokyo", (), None)
            v2 = judge(client, "Q2?", "Paris", "Paris", (), None)
    assert (v1.correct, v1.citation, v1.unparsed) == (1.0, None, 1)
    assert (v2.correct, v2.citation, v2.unparsed) == (None, 0.5, 1)
    assert caplog.text.count("unparsable") == 2
    rows = [
        {
            "searcher": "m",
            "answer": "Tokyo",
            "f1": 1.0,
            "category": 1,
            "judge": "m",
            "judge_correct": v.correct,
            "judge_citation": v.citation,
            "judge_unparsed": v.unparsed,
            "search_tool_calls": 1,
            "search_rounds": 1,
            "search_chars_read": 1,
            "search_dollars": 0.0,
            "search_prompt_tokens": 1,
            "search_completion_tokens": 1,
            "search_no_tool_call": False,
            "search_compactions": 2,
            "search_truncations": 1,
        }
        for v in (v1, v2)
    ]
    built = placeholder(
        FsmemBuild,
        variant="v",
        agent="b",
        tool_calls=0,
        tokens=0,
        dollars=0.0,
        store={"files": 1, "sections": 1, "bytes": 1},
        episodes=[{"compactions": 1, "no_tool_call": True}],
    )
    out = summarize(rows, built)
    assert (out["judge unparsed"], out["compactions"], out["truncations"], out["no tool call"]) == (2, 5, 2, 1)


def test_a_cache_written_before_the_sent_counter_gains_it(tmp_path):
    import sqlite3

    from tailmem.llm.cache import CallCache

    with sqlite3.connect(tmp_path / "old.sqlite") as conn:  # the counts table as tailmem wrote it before issue 14
        conn.execute(
            "CREATE TABLE counts (role TEXT NOT NULL, stage TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 0, "
            "misses INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (role, stage))"
        )
        conn.execute("INSERT INTO counts VALUES ('judge', 'old', 3, 2)")
    cache = CallCache(tmp_path / "old.sqlite")
    cache.bump("judge", "old", "sent", 2)
    (row,) = cache.stats()
    assert (row.hits, row.misses, row.sent, row.short_prompts) == (3, 2, 2, 0)
