"""The call cache: a stage killed with SIGKILL half-way resumes without repeating a finished call; concurrent
writers (processes) keep one intact database."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from llm_stage_script import main as stage_main

from llm_testkit import FakeServer
from tailmem.llm.cache import CallCache, request_hash
from tailmem.llm.records import ChatResponse, Usage

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "llm_stage_script.py"


def run_stage(cache, base_url, out, n, *extra):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, str(SCRIPT), str(cache), base_url, str(out), str(n), *extra], env=env)


def integrity(path) -> str:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]


@pytest.mark.slow
def test_killed_stage_resumes_without_repeating_a_finished_call(tmp_path):
    n, kill_at = 12, 7
    child = {}

    def kill_midway(count):  # SIGKILL the stage while its 7th call is in flight
        if count == kill_at and "p" in child:
            os.kill(child["p"].pid, signal.SIGKILL)

    with FakeServer(latency_s=0.05) as server:
        server.on_request = kill_midway
        child["p"] = run_stage(tmp_path / "a.sqlite", server.base_url, tmp_path / "a.json", n)
        assert child["p"].wait(timeout=60) == -signal.SIGKILL
        assert not (tmp_path / "a.json").exists()
        assert integrity(tmp_path / "a.sqlite") == "ok"
        finished = CallCache(tmp_path / "a.sqlite")
        assert len(finished) == kill_at - 1  # the call in flight was not recorded

        server.on_request = None
        first_run = server.requests
        assert run_stage(tmp_path / "a.sqlite", server.base_url, tmp_path / "a.json", n).wait(timeout=60) == 0
        assert server.requests - first_run == n - (kill_at - 1)  # only the unfinished calls
        assert max(server.by_prompt.values()) <= 2
        assert [p for p, k in server.by_prompt.items() if k == 2] == [f"step {kill_at - 1}"]  # the killed one

        # an uninterrupted run on a fresh cache (in this process) gives the same outputs
        assert stage_main([str(tmp_path / "b.sqlite"), server.base_url, str(tmp_path / "b.json"), str(n)]) == 0
        before = server.requests
        assert stage_main([str(tmp_path / "b.sqlite"), server.base_url, str(tmp_path / "c.json"), str(n)]) == 0
        assert server.requests == before  # a re-run of a finished stage makes no call
    assert integrity(tmp_path / "a.sqlite") == "ok" and len(CallCache(tmp_path / "a.sqlite")) == n
    outputs = [json.loads((tmp_path / f"{x}.json").read_text()) for x in "abc"]
    assert [[c, p] for c, p, _ in outputs[0]] == [[c, p] for c, p, _ in outputs[1]]
    assert outputs[1] == outputs[2]  # a cached re-run returns even the recorded latencies


@pytest.mark.slow
def test_concurrent_writer_processes_share_one_intact_cache(tmp_path):
    with FakeServer(latency_s=0.01) as server:
        procs = [
            run_stage(tmp_path / "shared.sqlite", server.base_url, tmp_path / f"o{i}.json", 20, "--many")
            for i in range(3)
        ]
        assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    assert integrity(tmp_path / "shared.sqlite") == "ok"
    cache = CallCache(tmp_path / "shared.sqlite")
    assert len(cache) == 20
    (row,) = cache.stats()
    assert row.hits + row.misses == 60 and row.misses >= 20
    outs = [json.loads((tmp_path / f"o{i}.json").read_text()) for i in range(3)]
    assert [o[0] for o in outs[0]] == [o[0] for o in outs[1]] == [o[0] for o in outs[2]]


def test_request_hash_is_canonical():
    a = {"model": "m", "messages": [{"role": "user", "content": "é"}], "params": {"t": 0, "s": 1}}
    b = {"params": {"s": 1, "t": 0}, "messages": [{"content": "é", "role": "user"}], "model": "m"}
    assert request_hash(a) == request_hash(b)
    assert request_hash(a) != request_hash({**a, "model": "n"})


def test_cache_roundtrip(tmp_path):
    cache = CallCache(tmp_path / "c.sqlite")
    r = ChatResponse("hi", (), Usage(10, 4, 2), "m", False, 0.5)
    cache.put("k", "judge", "s", "openai", {"x": 1}, r, 0.001)
    got = cache.get("k")
    assert got.from_cache and (got.content, got.usage, got.latency_s) == ("hi", r.usage, 0.5)
    assert cache.get("other") is None
