"""The reference rollout: a plain per-step loop over a networkx graph (`sorted(G.neighbors(s))`).

It shares nothing with the numba kernel but the rules and the uniforms, so equal access counts check the
kernel; it is also the baseline of `benchmarks/bench_rollout.py`.
"""

from __future__ import annotations

import networkx as nx

from tailmem.rollout.loop import run_loop
from tailmem.rollout.policy import RandomWalk
from tailmem.rollout.randomness import Uniforms
from tailmem.rollout.retrieval import Retriever
from tailmem.rollout.trace import Trace


def reference_rollout(graph: nx.Graph, design: str, k: int, uniforms: Uniforms, start: str = "uniform") -> Trace:
    """Random walk with retrieval `design` on `graph` (states 0..n-1), driven by `uniforms`, episodes starting
    by rule `start`."""
    n = graph.number_of_nodes()

    def neighbors(s: int) -> list[int]:
        return sorted(graph.neighbors(s))

    def names(s: int) -> tuple[str, ...]:
        return ("move",) * graph.degree(s)  # the random walk only counts its actions

    return run_loop(n, neighbors, names, RandomWalk(), Retriever(n, design, k, neighbors), uniforms, start=start)
