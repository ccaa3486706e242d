"""Wall time of the controller replay's predictions, one call at a time against side by side.

A matched replay's prompts never depend on its predictions, so its planned predictor calls are independent and
go out together (tailmem.llm.parallel, `llm.concurrency`). Here a 48-step walk on a 300-state world is replayed
under Graph Memory with a model predictor on the loopback test server (tests/llm_testkit.py) answering each
request after 200 ms, a stand-in for a served model's latency: once with concurrency 1 and once with 8, each
against an empty call cache. Prints the two wall times, their ratio, the most requests in flight, and whether
the rows are the same. Measures and prints; asserts nothing.

    PYTHONPATH=src python benchmarks/bench_concurrency.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the loopback chat-completions server of the tests

from llm_testkit import FakeServer, llm_cfg  # noqa: E402
from tailmem.control.predict import ModelPredictor  # noqa: E402
from tailmem.control.replay import replay  # noqa: E402
from tailmem.graphworld.build import build_world  # noqa: E402
from tailmem.llm import get_client  # noqa: E402
from tailmem.memory.controllers import make_controller  # noqa: E402
from tailmem.memory.tokens import TokenCounter  # noqa: E402

LATENCY_S = 0.2
STEPS = 48
CONCURRENCY = (1, 8)


def walk(world, steps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A random walk's states and the edges it took."""
    rng = np.random.default_rng(seed)
    states, edges, s = [], [], 0
    for _ in range(steps):
        e = int(world.indptr[s]) + int(rng.integers(world.degree(s)))
        states.append(s)
        edges.append(e)
        s = int(world.targets[e])
    return np.array(states), np.array(edges)


def reply(body: dict) -> str:
    codes = [w for w in body["messages"][-1]["content"].split() if w.startswith("S") and w[1:].isdigit()]
    return codes[-1] if codes else "UNKNOWN"


def main() -> None:
    world = build_world("scale_free", 300, {"m": 2}, 0)
    states, edges = walk(world, STEPS)
    counter = TokenCounter()
    results = {}
    with FakeServer(latency_s=LATENCY_S, reply=reply) as server, tempfile.TemporaryDirectory() as tmp:
        for concurrency in CONCURRENCY:
            cfg = llm_cfg(Path(tmp) / f"c{concurrency}", server.base_url, concurrency=concurrency)
            Path(cfg["llm"]["cache_path"]).parent.mkdir(parents=True)
            predictor = ModelPredictor(get_client(cfg, "predictor", "control"))
            controller = make_controller({"name": "graph_memory", "budget": 160})
            server.max_active, before = 0, server.requests
            start = time.perf_counter()
            result = replay(world, states, edges, controller, predictor, counter)
            seconds = time.perf_counter() - start
            results[concurrency] = (seconds, server.requests - before, server.max_active, result.steps)
    (t1, sent1, flight1, rows1), (tn, sent, flight, rows) = (results[c] for c in CONCURRENCY)
    print(f"controller replay, {STEPS} steps, graph_memory, model predictor, {LATENCY_S * 1000:.0f} ms per reply")
    print(f"  concurrency {CONCURRENCY[0]}: {t1:6.2f} s, {sent1} requests, at most {flight1} in flight")
    print(f"  concurrency {CONCURRENCY[1]}: {tn:6.2f} s, {sent} requests, at most {flight} in flight")
    print(f"  sequential / concurrent wall time: {t1 / tn:.1f}x; rows identical: {rows.equals(rows1)}")


if __name__ == "__main__":
    main()
