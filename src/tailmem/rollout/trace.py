"""The Trace record: where the agent went and which memory items were placed into its context, step by step.

One access = one item placed into the context at one step (the visit of the current state counts as one).
`counts` is the per-item access count over all n states, the vector the tail audit studies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tailmem.errors import ArtifactError
from tailmem.records.rollout import TRACE_ARRAYS, RolloutTrace

FIELDS = TRACE_ARRAYS


@dataclass(frozen=True, eq=False)
class Trace:
    """A rollout's record; all arrays int64, read-only.

    states (T,): state at each step; actions (T,): CSR edge taken at each step; episode (T,): episode of each
    step; access_step (A,) / access_item (A,): the accesses in order (per step: the visit, then retrieved items
    in retrieval order); counts (n,): accesses per item, zero for never-accessed states.
    """

    states: np.ndarray
    actions: np.ndarray
    episode: np.ndarray
    access_step: np.ndarray
    access_item: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        for name in FIELDS:
            arr = np.array(getattr(self, name), dtype=np.int64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def n(self) -> int:
        return len(self.counts)

    @property
    def total_steps(self) -> int:
        return len(self.states)

    @property
    def total_accesses(self) -> int:
        return len(self.access_item)

    def counts_over(self, steps: int) -> np.ndarray:
        """Accesses per item over the first `steps` steps (the whole trace's `counts` at its length): the walk's
        concentration over a shorter trace's steps, on the same world."""
        return np.bincount(self.access_item[self.access_step < steps], minlength=self.n)

    def save(self, path: str | Path) -> Path:
        """Write `trace.npz` atomically, through its record (the format version in the file)."""
        return RolloutTrace({name: getattr(self, name) for name in FIELDS}).write(path)

    @classmethod
    def load(cls, path: str | Path) -> "Trace":
        """Read and validate `trace.npz`; an old, other-version or inconsistent file raises ArtifactError naming it."""
        arrays = RolloutTrace.read(path).arrays
        problem = _problem(arrays)
        if problem:
            raise ArtifactError(f"{path}: not a valid trace file: {problem}. {RolloutTrace.rebuild(path)}")
        return cls(**{name: arrays[name] for name in FIELDS})


def _problem(a: dict[str, np.ndarray]) -> str | None:
    for name in FIELDS:
        if a[name].ndim != 1 or (a[name].size and a[name].dtype.kind not in "iu"):
            return f"{name}: expected a 1-D integer array"
    n, steps, accesses = len(a["counts"]), len(a["states"]), len(a["access_item"])
    if len(a["actions"]) != steps or len(a["episode"]) != steps:
        return f"states/actions/episode: expected equal lengths, got {steps}/{len(a['actions'])}/{len(a['episode'])}"
    if len(a["access_step"]) != accesses:
        return "access_step/access_item: expected equal lengths"
    if steps and (a["states"].min() < 0 or a["states"].max() >= n or a["actions"].min() < 0):
        return f"states: expected values in [0, {n})"
    if accesses and (a["access_item"].min() < 0 or a["access_item"].max() >= n):
        return f"access_item: expected values in [0, {n})"
    if np.any(np.diff(a["episode"]) < 0) or np.any(np.diff(a["access_step"]) < 0):
        return "episode/access_step: expected non-decreasing values"
    if accesses and (a["access_step"].min() < 0 or a["access_step"].max() >= steps):
        return f"access_step: expected steps in [0, {steps})"
    if not np.array_equal(np.bincount(a["access_item"], minlength=n), a["counts"]):
        return "counts: do not match the accesses in access_item"
    return None
