"""The six graph families of the Synthetic Graph World: config checks and seeded generators.

Each family names its own config keys (besides `graph.family` and `graph.n`), checks them before anything is
drawn (so a bad config fails in a second and writes nothing), and draws a connected simple graph on states
0..n-1. Families with planted communities also return the community label of each state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tailmem.errors import ConfigError
from tailmem.graphworld.connect import draw_connected
from tailmem.graphworld.seeds import derive_rng, derive_seed
from tailmem.lazy import lazy
from tailmem.settings.graph import MIN_STATES  # the smallest world: the scale's sizes are checked against it

nx = lazy("networkx")  # the config checks here run at every stage's start; only drawing needs networkx


@dataclass(frozen=True)
class Draw:
    """A connected simple graph on 0..n-1, its planted communities (or None) and construction notes."""

    graph: nx.Graph
    community: np.ndarray | None
    notes: dict


@dataclass(frozen=True)
class Family:
    """A graph family: its config keys, a check that raises ConfigError, and a seeded generator."""

    name: str
    keys: tuple[str, ...]
    check: Callable[[int, dict], None]
    draw: Callable[[int, dict, int], Draw]


# ---------------------------------------------------------------- config value checks (messages name the key)


def _int(params: dict, key: str, lo: int | None = None, hi: int | None = None, why: str = "") -> int:
    value = params[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"graph.{key}={value!r}: expected an integer")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f">= {lo}" if hi is None else (f"<= {hi}" if lo is None else f"in [{lo}, {hi}]")
        raise ConfigError(f"graph.{key}={value}: expected {bounds}{why}")
    return value


def _float(params: dict, key: str, lo: float, hi: float | None = None, why: str = "", open_lo: bool = False) -> float:
    value = params[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"graph.{key}={value!r}: expected a finite number")
    if (value <= lo if open_lo else value < lo) or (hi is not None and value > hi):
        low = f"> {lo}" if open_lo else f">= {lo}"
        raise ConfigError(f"graph.{key}={value}: expected {low}" + (f" and <= {hi}" if hi is not None else "") + why)
    return float(value)


def split_sizes(n: int, parts: int) -> list[int]:
    """Community sizes as equal as possible (the first n % parts get one more state)."""
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


def block_labels(sizes: list[int]) -> np.ndarray:
    return np.repeat(np.arange(len(sizes)), sizes)


# ---------------------------------------------------------------- uniform: random regular


def _check_uniform(n: int, p: dict) -> None:
    d = _int(
        p,
        "degree",
        3,
        n - 1,
        f" (a random regular graph on graph.n={n} states; degree 2 is a union of cycles, rarely connected)",
    )
    if n * d % 2:
        raise ConfigError(
            f"graph.degree={d}: graph.n * graph.degree must be even for a random regular graph (graph.n={n})"
        )


def _draw_uniform(n: int, p: dict, seed: int) -> Draw:
    g, notes = draw_connected(lambda s: nx.random_regular_graph(p["degree"], n, seed=s), seed, "uniform")
    return Draw(g, None, notes)


# ---------------------------------------------------------------- exponential: geometric degrees, configuration model


def _check_exponential(n: int, p: dict) -> None:
    lo = _int(p, "min_degree", 1, n - 2, f" (graph.n={n})")
    _float(p, "mean_degree", lo, n - 1, f" (above graph.min_degree={lo}, below graph.n={n})", open_lo=True)


def geometric_degrees(n: int, mean: float, low: int, rng: np.random.Generator) -> np.ndarray:
    """Degrees low + Geometric - 1 with the given mean, capped at n - 1, with an even sum (one state +1 if odd)."""
    deg = low - 1 + rng.geometric(1.0 / (mean - low + 1.0), size=n)
    deg = np.minimum(deg, n - 1)
    if deg.sum() % 2:
        room = np.flatnonzero(deg < n - 1)
        deg[room[rng.integers(len(room))]] += 1
    return deg


def _configuration_graph(n: int, mean: float, low: int, seed: int) -> nx.Graph:
    deg = geometric_degrees(n, mean, low, np.random.default_rng(seed))
    multi = nx.configuration_model(deg.tolist(), seed=seed)
    loops = nx.number_of_selfloops(multi)
    g = nx.Graph(multi)
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    g.graph["dropped_edges"] = multi.number_of_edges() - g.number_of_edges()  # self-loops and repeats
    g.graph["dropped_self_loops"] = loops
    return g


def _draw_exponential(n: int, p: dict, seed: int) -> Draw:
    g, notes = draw_connected(
        lambda s: _configuration_graph(n, p["mean_degree"], p["min_degree"], s), seed, "exponential"
    )
    notes = {
        **notes,
        "dropped_edges": g.graph.pop("dropped_edges"),
        "dropped_self_loops": g.graph.pop("dropped_self_loops"),
    }
    return Draw(g, None, notes)


# ---------------------------------------------------------------- scale_free: Barabasi-Albert


def _check_scale_free(n: int, p: dict) -> None:
    _int(p, "m", 1, n - 1, f" (edges per new state, fewer than graph.n={n})")


def _draw_scale_free(n: int, p: dict, seed: int) -> Draw:
    g, notes = draw_connected(lambda s: nx.barabasi_albert_graph(n, p["m"], seed=s), seed, "scale_free")
    return Draw(g, None, notes)


# ---------------------------------------------------------------- modular: planted partition


def _check_modular(n: int, p: dict) -> None:
    c = _int(p, "communities", 2, None)
    if n // c < 3:
        raise ConfigError(f"graph.n={n}: too small for graph.communities={c} (at least 3 states per community)")
    sizes = split_sizes(n, c)
    _float(
        p,
        "k_in",
        0.0,
        min(sizes) - 1,
        f" (mean within-community degree; communities have {min(sizes)} states)",
        open_lo=True,
    )
    _float(p, "k_out", 0.0, n - max(sizes), f" (mean across-community degree; graph.n={n})")


def _draw_modular(n: int, p: dict, seed: int) -> Draw:
    sizes = split_sizes(n, p["communities"])
    p_in = p["k_in"] / (min(sizes) - 1)
    p_out = p["k_out"] / (n - max(sizes))
    community = block_labels(sizes)
    g, notes = draw_connected(
        lambda s: nx.random_partition_graph(sizes, p_in, p_out, seed=s), seed, "modular", community
    )
    return Draw(g, community, notes)


# ---------------------------------------------------------------- mixed: communities of different families, bridged

MIXED_PARTS = ("uniform", "exponential", "scale_free")  # the family of community i is MIXED_PARTS[i % 3]


def _check_mixed(n: int, p: dict) -> None:
    c = _int(p, "communities", 2, None)
    d = _int(p, "degree", 3, None, " (degree inside each community)")
    sizes = split_sizes(n, c)
    if min(sizes) <= d:
        raise ConfigError(
            f"graph.n={n}: too small for graph.communities={c} with graph.degree={d} "
            f"(each community needs more than {d} states, so graph.n >= {c * (d + 1)})"
        )
    for i, size in enumerate(sizes):
        if MIXED_PARTS[i % 3] == "uniform" and size * d % 2:
            raise ConfigError(
                f"graph.degree={d}: community {i} is random regular with {size} states, so "
                "size * degree must be even; use an even graph.degree or change graph.n"
            )
    most = min(a * b for a, b in zip(sizes, sizes[1:]))
    _int(p, "bridges", 1, most, " (edges between consecutive communities)")


def _draw_mixed(n: int, p: dict, seed: int) -> Draw:
    sizes = split_sizes(n, p["communities"])
    d = p["degree"]
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    parts = []
    for i, size in enumerate(sizes):
        kind = MIXED_PARTS[i % 3]
        part_seed = derive_seed(seed, "mixed", i)
        if kind == "uniform":
            sub = _draw_uniform(size, {"degree": d}, part_seed)
        elif kind == "exponential":
            sub = _draw_exponential(size, {"mean_degree": float(d), "min_degree": 1}, part_seed)
        else:
            sub = _draw_scale_free(size, {"m": max(1, d // 2)}, part_seed)
        graph.add_edges_from((u + starts[i], v + starts[i]) for u, v in sub.graph.edges())
        parts.append({"family": kind, "states": size, **sub.notes})
    rng = derive_rng(seed, "mixed", "bridges")
    for i in range(len(sizes) - 1):
        picks = rng.choice(sizes[i] * sizes[i + 1], size=p["bridges"], replace=False)
        for pick in picks:
            u, v = divmod(int(pick), sizes[i + 1])
            graph.add_edge(int(starts[i] + u), int(starts[i + 1] + v))
    return Draw(graph, block_labels(sizes), {"draws": 1, "joined_components": 0, "parts": parts})


# ---------------------------------------------------------------- baseline_symmetric: ring lattice


def _check_baseline_symmetric(n: int, p: dict) -> None:
    d = _int(p, "degree", 2, n - 1, f" (ring lattice on graph.n={n} states)")
    if d % 2:
        raise ConfigError(
            f"graph.degree={d}: a ring lattice links degree/2 states on each side, so the degree must be even"
        )


def _draw_baseline_symmetric(n: int, p: dict, seed: int) -> Draw:
    g = nx.circulant_graph(n, range(1, p["degree"] // 2 + 1))
    return Draw(nx.Graph(g), None, {"draws": 1, "joined_components": 0})


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("uniform", ("degree",), _check_uniform, _draw_uniform),
        Family("exponential", ("mean_degree", "min_degree"), _check_exponential, _draw_exponential),
        Family("scale_free", ("m",), _check_scale_free, _draw_scale_free),
        Family("modular", ("communities", "k_in", "k_out"), _check_modular, _draw_modular),
        Family("mixed", ("communities", "degree", "bridges"), _check_mixed, _draw_mixed),
        Family("baseline_symmetric", ("degree",), _check_baseline_symmetric, _draw_baseline_symmetric),
    )
}


def check_graph_config(graph: dict[str, Any]) -> tuple[str, int, dict]:
    """Validate the `graph` config group; return (family, n, family params). Raises ConfigError naming the key."""
    family = graph.get("family")
    if family not in FAMILIES:
        raise ConfigError(f"graph.family={family!r}: unknown family; expected one of {sorted(FAMILIES)}")
    if "n" not in graph:
        raise ConfigError("graph.n is missing: expected the number of states")
    n = _int(graph, "n", MIN_STATES, None, " (number of states)")
    spec = FAMILIES[family]
    missing = [k for k in spec.keys if graph.get(k) is None]
    if missing:
        raise ConfigError(
            f"graph.{missing[0]} is missing: the {family} family needs keys {['graph.' + k for k in spec.keys]}"
        )
    params = {k: graph[k] for k in spec.keys}
    spec.check(n, params)
    return family, n, params
