"""Rolling out a policy on a world: the numba kernel for the random walk, the Python loop otherwise."""

from __future__ import annotations

import numpy as np
from tqdm import tqdm

from tailmem.graphworld.world import World
from tailmem.rollout.kernel import DESIGN_CODES, START_CODES, walk_kernel
from tailmem.rollout.loop import run_loop
from tailmem.rollout.policy import Policy
from tailmem.rollout.randomness import Uniforms, draw_uniforms, world_seed
from tailmem.rollout.retrieval import Retriever
from tailmem.rollout.trace import Trace
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup

BAR_UPDATES = 50  # a shown progress bar splits the kernel run into about this many chunks of episodes


def load_kernel() -> None:
    """Load the random-walk kernel's machine code for the argument types a rollout passes (read-only int64 CSR
    arrays, float64 uniforms): numba reads it from its disk cache in about 0.5 s, once per process. The warm
    server (tailmem.warmstart) calls this once so that every forked rollout job starts with it loaded."""
    ring = np.array([1, 2, 0, 2, 0, 1], dtype=np.int64)  # a triangle: the smallest world with a choice
    indptr = np.array([0, 2, 4, 6], dtype=np.int64)
    for arr in (ring, indptr):
        arr.setflags(write=False)
    kernel_rollout(indptr, ring, "recency", 1, draw_uniforms(0, 1, 2, 1), progress=False)


def kernel_rollout(
    indptr: np.ndarray,
    targets: np.ndarray,
    design: str,
    k: int,
    uniforms: Uniforms,
    progress: bool | None = None,
    start: str = "uniform",
) -> Trace:
    """Random walk with retrieval `design` over CSR arrays, driven by `uniforms` (the fast path); `start` is the
    start-state rule of every episode (`settings.STARTS`).

    `progress=None` shows a bar over episodes on a TTY only; a hidden bar means one kernel call.
    """
    n, episodes, steps = len(indptr) - 1, uniforms.episodes, uniforms.steps
    total = episodes * steps
    draws = uniforms.retrieval.shape[1]
    if design in ("state_mate_uniform", "state_aware_frequency") and draws < k:
        raise ValueError(f"{design} with k={k} needs {k} retrieval uniforms per step, got {draws}")
    max_degree = int(np.diff(indptr).max())
    reach = min(k, n - 1) if design == "recency" else min(k, draws, max_degree)  # most retrieved items per step
    states, actions, episode = (np.zeros(total, dtype=np.int64) for _ in range(3))
    access_step = np.zeros(total * (1 + reach), dtype=np.int64)
    access_item = np.zeros(total * (1 + reach), dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    stored = np.zeros(n, dtype=np.bool_)
    seen_at = np.full(n, -1, dtype=np.int64)
    arrays = (
        uniforms.start,
        uniforms.policy,
        uniforms.retrieval,
        states,
        actions,
        episode,
        access_step,
        access_item,
        counts,
        stored,
        seen_at,
    )
    hide = None if progress is None else not progress
    with tqdm(total=episodes, desc=f"rollout {design}", unit="episode", disable=hide, leave=False) as bar:
        chunk = episodes if bar.disable else max(1, -(-episodes // BAR_UPDATES))
        accesses = 0
        for first in range(0, episodes, chunk):
            stop = min(episodes, first + chunk)
            accesses = walk_kernel(
                indptr, targets, DESIGN_CODES[design], k, START_CODES[start], steps, first, stop, *arrays, accesses
            )
            bar.update(stop - first)
    return Trace(states, actions, episode, access_step[:accesses], access_item[:accesses], counts)


def rollout(
    world: World,
    length: RolloutGroup,
    retrieval: RetrievalGroup,
    seed: int,
    policy: Policy | None = None,
    progress: bool | None = None,
) -> Trace:
    """The trace of `length.episodes` x `length.steps` steps with the `retrieval` design on `world`: deterministic
    for `seed` and the world (`randomness.world_seed`).

    The random walk (`policy=None`) runs in the numba kernel; any other `policy` object runs step by step in Python
    with the same retrieval rules and the same uniforms.
    """
    uniforms = draw_uniforms(world_seed(seed, world.family, world.n), length.episodes, length.steps, retrieval.draws)
    if policy is None:
        return kernel_rollout(
            world.indptr, world.targets, retrieval.name, retrieval.k, uniforms, progress, length.start
        )
    neighbors = lambda s: world.neighbors(s).tolist()  # noqa: E731 - Python ints, ascending
    retriever = Retriever(world.n, retrieval.name, retrieval.k, neighbors)
    return run_loop(world.n, neighbors, world.actions, policy, retriever, uniforms, progress, length.start)
