"""The World record: a connected simple graph as CSR arrays, with state texts and action names, and its file.

Transitions are deterministic: action `a` of state `s` (its a-th neighbour in ascending order, CSR edge
`indptr[s] + a`) leads to `targets[indptr[s] + a]`. A world is saved as one JSON file (`world.json`) and fully
validated on load, so a truncated or hand-edited file fails with its name rather than deep inside a rollout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from tailmem.errors import ArtifactError
from tailmem.records.graphworld import WorldFile


def _frozen(values, dtype=np.int64) -> np.ndarray:
    arr = np.array(values, dtype=dtype)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class World:
    """A graph world. Arrays are read-only; `community` holds region labels (planted or detected, see
    `construction["regions"]`)."""

    family: str
    n: int
    seed: int
    params: dict[str, Any]
    indptr: np.ndarray  # (n + 1,) int64: actions of s are CSR edges indptr[s] .. indptr[s + 1] - 1
    targets: np.ndarray  # (2 * edges,) int64: destination of each CSR edge; ascending within a state
    action_names: tuple[str, ...]  # (2 * edges,): name of each CSR edge, unique within its state
    state_texts: tuple[str, ...]  # (n,): description of each state
    community: np.ndarray | None = None  # (n,) int64 region label of each state
    construction: dict[str, Any] = field(default_factory=dict)  # how the graph was drawn (draws, repairs, ...)

    def __post_init__(self) -> None:
        object.__setattr__(self, "indptr", _frozen(self.indptr))
        object.__setattr__(self, "targets", _frozen(self.targets))
        object.__setattr__(self, "action_names", tuple(self.action_names))
        object.__setattr__(self, "state_texts", tuple(self.state_texts))
        if self.community is not None:
            object.__setattr__(self, "community", _frozen(self.community))

    # ------------------------------------------------------------ transitions
    @property
    def n_edges(self) -> int:
        """Undirected edges (each gives one action in each direction)."""
        return len(self.targets) // 2

    def degree(self, state: int) -> int:
        return int(self.indptr[state + 1] - self.indptr[state])

    def neighbors(self, state: int) -> np.ndarray:
        """Destinations of the actions of `state`, ascending (action a goes to neighbors(state)[a])."""
        return self.targets[self.indptr[state] : self.indptr[state + 1]]

    def actions(self, state: int) -> tuple[str, ...]:
        """Names of the actions of `state`, in action-index order."""
        return self.action_names[self.indptr[state] : self.indptr[state + 1]]

    def edge(self, state: int, action: int) -> int:
        """CSR edge index of action `action` (0 .. degree - 1) of `state`; traces record actions this way."""
        if not 0 <= action < self.degree(state):
            raise IndexError(f"state {state} has {self.degree(state)} actions, not action {action}")
        return int(self.indptr[state] + action)

    def step(self, state: int, action: int) -> int:
        """The deterministic transition (state, action) -> next state."""
        return int(self.targets[self.edge(state, action)])

    def to_networkx(self) -> nx.Graph:
        g = nx.Graph()
        g.add_nodes_from(range(self.n))
        sources = np.repeat(np.arange(self.n), np.diff(self.indptr))
        g.add_edges_from(zip(sources.tolist(), self.targets.tolist()))
        return g

    # ------------------------------------------------------------ file
    def record(self) -> WorldFile:
        """The world as its file's record (plain lists: what JSON holds)."""
        return WorldFile(
            family=self.family,
            n=self.n,
            seed=self.seed,
            params=self.params,
            construction=self.construction,
            n_edges=self.n_edges,
            indptr=self.indptr.tolist(),
            targets=self.targets.tolist(),
            action_names=list(self.action_names),
            state_texts=list(self.state_texts),
            community=None if self.community is None else self.community.tolist(),
        )

    def to_json(self) -> dict[str, Any]:
        return self.record().to_json()

    def save(self, path: str | Path) -> Path:
        """Write the world atomically as one JSON file, through its record (the format version in the file)."""
        return self.record().write(path)

    @classmethod
    def load(cls, path: str | Path) -> "World":
        """Read and validate `world.json`; an old or other-version file, or any inconsistency, raises ArtifactError
        naming the file."""
        path = Path(path)
        record = WorldFile.read(path)
        try:
            world = _from_record(record)
            problem = world.problem()
        except (KeyError, TypeError, ValueError) as exc:
            problem = f"malformed field ({type(exc).__name__}: {exc})"
        if problem:
            raise ArtifactError(f"{path}: not a valid world file: {problem}. {WorldFile.rebuild(path)}")
        return world

    # ------------------------------------------------------------ validation
    def problem(self) -> str | None:
        """The first inconsistency found, or None: CSR shape, ranges, sorted simple symmetric rows,
        text counts, unique action names per state, connectedness."""
        n, indptr, targets = self.n, self.indptr, self.targets
        if n < 1:
            return f"n={n}: expected at least 1 state"
        if len(indptr) != n + 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != len(targets):
            return f"indptr: expected {n + 1} non-decreasing offsets from 0 to len(targets)={len(targets)}"
        if len(targets) and (targets.min() < 0 or targets.max() >= n):
            return f"targets: expected states in [0, {n})"
        sources = np.repeat(np.arange(n), np.diff(indptr))
        if np.any(sources == targets):
            return "targets: self-loop found (a world is a simple graph)"
        same_row = sources[1:] == sources[:-1]
        if np.any(same_row & (targets[1:] <= targets[:-1])):
            return "targets: neighbours must be strictly ascending within each state (no repeated edges)"
        forward = np.sort(sources * n + targets)
        backward = np.sort(targets * n + sources)
        if not np.array_equal(forward, backward):
            return "targets: every edge must appear in both directions"
        if len(self.action_names) != len(targets) or not all(isinstance(a, str) for a in self.action_names):
            return f"action_names: expected {len(targets)} strings (one per CSR edge)"
        for s in range(n):
            names = self.action_names[indptr[s] : indptr[s + 1]]
            if len(set(names)) != len(names):
                return f"action_names: state {s} has repeated action names"
        if len(self.state_texts) != n or not all(isinstance(t, str) for t in self.state_texts):
            return f"state_texts: expected {n} strings"
        if self.community is not None and (len(self.community) != n or self.community.min() < 0):
            return f"community: expected {n} non-negative labels"
        adjacency = csr_matrix((np.ones(len(targets)), targets, indptr), shape=(n, n))
        if connected_components(adjacency, directed=False)[0] != 1:
            return "graph is not connected"
        return None


def _int_array(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ValueError(f"{name}: expected a list of integers")
    return arr.astype(np.int64)


def _from_record(data: WorldFile) -> World:
    n = data.n
    if not isinstance(n, int) or isinstance(n, bool):
        raise ValueError("n: expected an integer")
    world = World(
        family=str(data.family),
        n=n,
        seed=int(data.seed),
        params=dict(data.params),
        indptr=_int_array(data.indptr, "indptr"),
        targets=_int_array(data.targets, "targets"),
        action_names=tuple(data.action_names),
        state_texts=tuple(data.state_texts),
        community=None if data.community is None else _int_array(data.community, "community"),
        construction=dict(data.construction),
    )
    if data.n_edges != world.n_edges:
        raise ValueError(f"n_edges={data.n_edges} but targets give {world.n_edges}")
    return world
