"""Every model stage holds min(concurrency, independent units) requests in flight against the strict test server
(the OpenAI API's parameter rules, 200 ms per reply), and its results are those of one call at a time: the same
rows in the same order, and the same requests (the call cache's hashes). A stage that goes back to one call at a
time fails here: its most requests in flight would be 1."""

import json
import re
import sqlite3

import pandas as pd
import pytest

from llm_testkit import FakeServer
from tailmem.cli import main

LATENCY_S = 0.2
CONCURRENCY = 4


def scripted_reply(body: dict) -> str:
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if "Which state does it lead to?" in text:
        codes = re.findall(r"\bS(\d+)\b", text)
        return f"S{codes[-1]}" if codes else "UNKNOWN"
    if '"correct"' in text:
        return '{"correct": 1}'
    if '"citation"' in text:
        return '{"citation": 1}'
    return "Calvin went to Tokyo [D3:1]."


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("TAILMEM_LLM_SLOTS", raising=False)
    with FakeServer(latency_s=LATENCY_S, reasoning=True, reply=scripted_reply) as s:
        yield s


def openai(server, cache, concurrency: int) -> list[str]:
    return [
        "llm=openai",
        f"llm.base_url={server.base_url}",
        f"llm.cache_path={cache}",
        f"llm.concurrency={concurrency}",
        "llm.retries=0",
    ]


def hashes(cache) -> list[str]:
    with sqlite3.connect(cache) as conn:
        return sorted(h for (h,) in conn.execute("SELECT hash FROM calls"))


def measure(server, run) -> tuple[int, int]:
    """(requests sent, most in flight at once) by `run()`."""
    server.max_active, before = 0, server.requests
    run()
    return server.requests - before, server.max_active


def test_the_controller_replay_sends_its_predictions_together(server, tmp_path):
    common = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        "graph=modular",
        "graph.n=30",
        "seed=0",
        "rollout.episodes=1",
        "rollout.steps=16",
    ]
    assert main(["graphworld", *common]) == 0
    assert main(["rollout", *common]) == 0  # a programmatic walk: the trajectory replayed below
    runs = {}
    for concurrency in (1, CONCURRENCY):
        server.latency_s = LATENCY_S if concurrency > 1 else 0.0  # one at a time needs no slow reply to show it
        out, cache = tmp_path / f"control{concurrency}", tmp_path / f"cache{concurrency}.sqlite"
        argv = ["control", "memory=graph_memory", f"out={out}", *common, *openai(server, cache, concurrency)]
        sent, in_flight = measure(server, lambda: main(argv))
        assert sent > CONCURRENCY
        runs[concurrency] = (sent, in_flight, pd.read_parquet(out / "steps.parquet"), hashes(cache))
    (sent1, flight1, steps1, hashes1), (sent, flight, steps, hashes_) = runs[1], runs[CONCURRENCY]
    assert flight1 == 1 and flight >= min(CONCURRENCY, sent), (flight, sent)
    pd.testing.assert_frame_equal(steps, steps1)  # the same rows in the same order
    assert (sent, hashes_) == (sent1, hashes1)  # the same requests


def test_fsmem_answers_and_their_judge_run_side_by_side(server, tmp_path, data_dir):
    common = [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        f"data_dir={data_dir}",
        "fsmem.max_questions=6",
        "fsmem.judge=true",
        "fsmem.rounds.search_other=4",  # four searcher rounds a question: enough to overlap, quick to run
    ]
    store = tmp_path / "store"
    assert main(["fsmem_build", "fsmem.variant=verbatim", f"out={store}", *common]) == 0  # no model call
    runs = {}
    for concurrency in (1, CONCURRENCY):
        server.latency_s = LATENCY_S if concurrency > 1 else 0.0  # one at a time needs no slow reply to show it
        out, cache = tmp_path / f"answers{concurrency}", tmp_path / f"cache{concurrency}.sqlite"
        argv = ["fsmem_answer", "fsmem.variant=verbatim", f"input={store}", f"out={out}", *common]
        sent, in_flight = measure(server, lambda: main([*argv, *openai(server, cache, concurrency)]))
        rows = json.loads((out / "answers.json").read_text())["rows"]
        runs[concurrency] = (sent, in_flight, rows, hashes(cache))
    (sent1, flight1, rows1, hashes1), (sent, flight, rows, hashes_) = runs[1], runs[CONCURRENCY]
    questions = len(rows)
    assert questions == 6 and all(r["judge_correct"] is not None for r in rows)
    assert flight1 == 1 and flight >= min(CONCURRENCY, questions), (flight, questions)

    def same(r):  # a row (or its judge's episode) without its clock readings
        if not isinstance(r, dict):
            return r
        return {k: same(v) for k, v in r.items() if "latency" not in k and "seconds" not in k}

    assert [same(r) for r in rows] == [same(r) for r in rows1]  # the same answers, traces and verdicts, in order
    assert (sent, hashes_) == (sent1, hashes1)
