"""The pipeline's model paths against a real OpenAI-compatible server on 127.0.0.1 (llm=openai).

The graph world (LLM policy rollout, model predictor in the controller study) and filesystem memory (model
builder, searcher and judge on LoCoMo) run through the same stages as offline, and every call is recorded in the
call cache with its usage; a second run of a finished stage makes no call.
"""

import re

import pytest

from llm_testkit import FakeServer
from tailmem.cli import main
from tailmem.llm.cache import CallCache


def scripted_reply(body: dict) -> str:
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if "Answer with the number of one option" in text:
        return "1"
    if "Which state does it lead to?" in text:
        codes = re.findall(r"\bS(\d+)\b", text)
        return f"S{codes[0]}" if codes else "UNKNOWN"
    if "yes or no" in text.lower() or "correct" in text.lower():
        return "yes"
    return "Calvin went to Tokyo [D3:1]."


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(reply=scripted_reply) as s:
        yield s


def openai_overrides(server, tmp_path) -> list[str]:
    return [
        "llm=openai",
        f"llm.base_url={server.base_url}",
        f"llm.cache_path={tmp_path}/llm_cache.sqlite",
        "llm.retries=1",
        "llm.backoff_s=0.01",
    ]


def test_graph_world_stages_call_the_model_and_record_usage(server, tmp_path, capsys):
    common = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        "graph=modular",
        "graph.n=30",
        "seed=0",
        "rollout.episodes=1",
        "rollout.steps=12",
        *openai_overrides(server, tmp_path),
    ]
    assert main(["graphworld", *common]) == 0
    assert main(["rollout", "policy=llm", *common]) == 0
    policy_calls = server.requests
    assert 0 < policy_calls <= 12  # one choice per step; a step whose request repeats an earlier one is a cache hit
    assert main(["control", "policy=llm", "memory=graph_memory", *common]) == 0
    assert 0 < server.requests - policy_calls <= 12  # one prediction per step, same rule
    summary = (
        tmp_path / "results/control/llm/gpt-5.4-mini/recency/modular/n30/seed0/gpt-5.4-mini/graph_memory/summary.json"
    ).read_text()
    assert '"predictor": "openai:gpt-5.4-mini"' in summary
    stats = CallCache(tmp_path / "llm_cache.sqlite").stats()
    assert stats, "the call cache recorded nothing"
    before = server.requests
    assert main(["control", "policy=llm", "memory=graph_memory", *common]) == 0
    assert server.requests == before  # a re-run answers from the cache
    assert main(["cache", "stats", "--db", str(tmp_path / "llm_cache.sqlite")]) == 0
    out = capsys.readouterr().out
    assert "predictor" in out and "policy" in out


def test_filesystem_memory_stages_run_with_model_agents(server, tmp_path, data_dir):
    common = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        f"data_dir={data_dir}",
        "fsmem.max_questions=2",
        *openai_overrides(server, tmp_path),
    ]
    store = tmp_path / "store"
    answers = tmp_path / "answers"
    assert main(["fsmem_build", "fsmem.variant=verbatim", f"out={store}", *common]) == 0
    assert main(["fsmem_answer", "fsmem.variant=verbatim", f"input={store}", f"out={answers}", *common]) == 0
    assert server.requests > 0
    text = (answers / "answers.json").read_text()
    assert "gpt-5.4-mini" in text
