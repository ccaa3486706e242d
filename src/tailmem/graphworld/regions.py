"""Regions: groups of nearby states that share a theme word in their descriptions.

Families with planted communities (modular, mixed) use them; the others get regions from Louvain community
detection (seeded), so a semantic policy can still navigate by theme on any family.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from tailmem.graphworld.seeds import derive_seed


def detect_regions(graph: nx.Graph, seed: int) -> np.ndarray:
    """Louvain communities as labels 0..R-1, numbered by their smallest state (deterministic for a seed)."""
    groups = nx.community.louvain_communities(graph, seed=derive_seed(seed, "regions"))
    labels = np.empty(graph.number_of_nodes(), dtype=np.int64)
    for label, group in enumerate(sorted(groups, key=min)):
        labels[list(group)] = label
    return labels
