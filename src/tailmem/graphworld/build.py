"""Making a World from the `graph` config and the run seed: check, draw, name regions, write the text."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from tailmem.errors import ConfigError
from tailmem.graphworld.families import FAMILIES, check_graph_config
from tailmem.graphworld.regions import detect_regions
from tailmem.graphworld.seeds import derive_rng, derive_seed
from tailmem.graphworld.texts import describe
from tailmem.graphworld.world import World


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed={seed!r}: expected a non-negative integer")
    return seed


def build_world(family: str, n: int, params: Mapping[str, Any], seed: int) -> World:
    """Draw the world of `family` with `n` states for `seed` (params already checked by check_graph_config)."""
    params = dict(params)
    draw = FAMILIES[family].draw(n, params, derive_seed(seed, "graph", family))
    graph = draw.graph
    if sorted(graph.nodes()) != list(range(n)):
        raise AssertionError(f"{family} generator returned states other than 0..{n - 1}")
    indptr = np.zeros(n + 1, dtype=np.int64)
    rows = [sorted(graph.neighbors(s)) for s in range(n)]
    indptr[1:] = np.cumsum([len(r) for r in rows])
    targets = np.array([v for r in rows for v in r], dtype=np.int64)
    if draw.community is not None:
        region, source = np.asarray(draw.community, dtype=np.int64), "planted"
    else:
        region, source = detect_regions(graph, seed), "louvain"
    texts, actions = describe(indptr, targets, region, derive_rng(seed, "texts", family))
    construction = {**draw.notes, "regions": source, "n_regions": int(region.max()) + 1}
    return World(family, n, seed, params, indptr, targets, actions, texts, region, construction)


def world_from_config(graph_cfg: Mapping[str, Any], seed: Any) -> World:
    """Validate the `graph` group and `seed` (ConfigError naming the key), then build the world."""
    seed = check_seed(seed)
    family, n, params = check_graph_config(dict(graph_cfg))
    return build_world(family, n, params, seed)
