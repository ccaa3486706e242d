"""Connected graphs only: redraw a disconnected sample a bounded number of times, then repair it.

Why repair instead of keeping the largest component: the state count `n` names the artifact and the size axis
of every table, so it must never change. The repair adds one edge from each smaller component to the largest
one (inside the same community when there is one), and the number of added edges is recorded in the world's
`construction` notes, so nothing changes silently. Random regular, Barabasi-Albert and ring lattices are
connected on the first draw in practice; the configuration model (degree-1 states form isolated pairs) and
sparse planted partitions (isolated states) are where the repair is used.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from tailmem.graphworld.seeds import derive_rng, derive_seed
from tailmem.lazy import lazy

MAX_DRAWS = 10  # redraws (with derived seeds) before repairing the last draw

nx = lazy("networkx")  # imported by the family checks every stage runs (tailmem.graphworld.families)


def draw_connected(
    draw: Callable[[int], nx.Graph], seed: int, tag: str, community: np.ndarray | None = None
) -> tuple[nx.Graph, dict]:
    """Call `draw(derived_seed)` until connected (at most MAX_DRAWS times), else repair the last draw.

    Returns the graph and notes {"draws": ..., "joined_components": ...}.
    """
    graph = None
    for attempt in range(MAX_DRAWS):
        graph = draw(derive_seed(seed, tag, attempt))
        if nx.is_connected(graph):
            return graph, {"draws": attempt + 1, "joined_components": 0}
    joined = join_components(graph, derive_rng(seed, tag, "join"), community)
    return graph, {"draws": MAX_DRAWS, "joined_components": joined}


def join_components(graph: nx.Graph, rng: np.random.Generator, community: np.ndarray | None = None) -> int:
    """Add one edge from a random state of each smaller component to the largest component; return edges added."""
    components = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: (-len(c), c[0]))
    largest = np.array(components[0])
    for comp in components[1:]:
        u = int(comp[rng.integers(len(comp))])
        pool = largest
        if community is not None:
            same = largest[community[largest] == community[u]]
            pool = same if len(same) else largest
        graph.add_edge(u, int(pool[rng.integers(len(pool))]))
    return len(components) - 1
