"""Prompt construction per step for each memory controller at 1,000 stored memories, and the cost of counting.

A scale-free world of 1,000 states is walked until every state is stored with its learned transitions; then each
controller builds the memory block for the same 300 steps. Token counting is timed two ways on the same blocks:
the controllers' memoised per-line counter vs tiktoken over each whole block (the plain reference).
Measures and prints; asserts nothing.
"""

from __future__ import annotations

import time

import numpy as np

from tailmem.control.world_memory import WorldMemory
from tailmem.graphworld.build import build_world
from tailmem.llm import count_tokens
from tailmem.memory.controllers import make_controller
from tailmem.memory.query import Query
from tailmem.memory.tokens import TokenCounter

ARMS = {
    "full_history": {"name": "full_history"},
    "sliding_window": {"name": "sliding_window"},
    "flat_retrieval": {"name": "flat_retrieval", "budget": 160},
    "frequency_cache": {"name": "frequency_cache", "budget": 160},
    "recency_cache": {"name": "recency_cache", "budget": 160},
    "hierarchical_summary": {"name": "hierarchical_summary"},
    "graph_memory": {"name": "graph_memory", "budget": 160},
    "ctmc": {"name": "ctmc", "budget": 160, "tau": 1.0},
}


def filled_memory(n: int = 1000, seed: int = 0) -> tuple[WorldMemory, list[int]]:
    world = build_world("scale_free", n, {"m": 2}, seed)
    rng = np.random.default_rng(seed)
    mem = WorldMemory(world)
    t, s = 0, 0
    while len(mem.store) < n:
        a = int(rng.integers(world.degree(s)))
        nxt = world.step(s, a)
        mem.learn(t, s, a, nxt)
        t, s = t + 1, nxt
        if t % 200 == 0:
            s = int(rng.integers(n))
    steps = [int(x) for x in rng.integers(n, size=300)]
    return mem, steps


def main() -> None:
    mem, states = filled_memory()
    print(f"memory: {len(mem.store)} items, {len(mem.store.history)} history records; 300 steps per controller")
    counter = TokenCounter()
    times, blocks = {}, {}
    for name, cfg in ARMS.items():
        ctl = make_controller(cfg)
        queries = [
            Query(step=10**6 + i, current=s, related=mem.related(s), text=mem.world.state_texts[s])
            for i, s in enumerate(states)
        ]
        ctl.build(mem.store, queries[0], counter)  # warm the per-line token cache
        t0 = time.perf_counter()
        out = [ctl.build(mem.store, q, counter) for q in queries]
        times[name] = (time.perf_counter() - t0) / len(queries)
        blocks[name] = [p.text for p in out]
        print(f"{name:22s} {times[name] * 1e3:9.3f} ms/step   {np.mean([p.tokens for p in out]):8.1f} tokens/step")
    print(f"CTMC / Graph Memory build time: {times['ctmc'] / times['graph_memory']:.2f}x")

    texts = blocks["full_history"][:30] + blocks["ctmc"] + blocks["hierarchical_summary"]
    t0 = time.perf_counter()
    ref = [count_tokens(t) for t in texts]
    t_ref = time.perf_counter() - t0
    fresh = TokenCounter()
    [fresh.lines(t.split("\n")) for t in texts]  # first pass fills the per-line cache
    t0 = time.perf_counter()
    memo = [fresh.lines(t.split("\n")) for t in texts]
    t_memo = time.perf_counter() - t0
    err = np.abs(np.array(memo) - np.array(ref)) / np.maximum(ref, 1)
    print(
        f"token counting over {len(texts)} blocks ({sum(ref):,} tokens): tiktoken whole text {t_ref * 1e3:.1f} ms, "
        f"memoised per line {t_memo * 1e3:.1f} ms ({t_ref / t_memo:.1f}x); per-line sum vs whole text: "
        f"median {100 * np.median(err):.2f}% / max {100 * err.max():.2f}% apart"
    )


if __name__ == "__main__":
    main()
