"""The pre-drawn uniforms that drive a rollout, so the numba kernel and the Python loop see the same numbers.

Three streams with their own derived seeds: episode starts, policy choices (one per step) and retrieval draws
(`retrieval_draws` per step, unused ones included, so step t always reads row t). Because the walk streams do not
depend on the retrieval design, a random walk is the same walk under every design for a seed: the retrieval
controls of Table 8 are matched on states and transitions.

The streams are keyed by the world as well as the seed (`world_seed`): worlds of two families (or sizes) with one
seed walk on streams of their own, so each world is an independent unit of the claims that pool worlds (the
random-walk rows over every family). Keyed by the seed alone, every family's episodes started at the same
fraction of its states and took the same policy draws.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tailmem.graphworld.seeds import derive_rng, derive_seed


@dataclass(frozen=True, eq=False)
class Uniforms:
    """Uniforms in [0, 1): `start` (episodes,), `policy` (T,), `retrieval` (T, draws)."""

    start: np.ndarray
    policy: np.ndarray
    retrieval: np.ndarray

    @property
    def episodes(self) -> int:
        return len(self.start)

    @property
    def steps(self) -> int:
        """Steps per episode."""
        return len(self.policy) // len(self.start)


def world_seed(seed: int, family: str, n: int) -> int:
    """The seed of one world's streams (walk, retrieval, goals): named by the run (family, size, seed)."""
    return derive_seed(int(seed), "world streams", str(family), int(n))


def draw_uniforms(seed: int, episodes: int, steps: int, retrieval_draws: int) -> Uniforms:
    walk = derive_rng(seed, "walk")
    start = walk.random(episodes)
    policy = walk.random(episodes * steps)
    retrieval = derive_rng(seed, "retrieval").random((episodes * steps, retrieval_draws))
    return Uniforms(start, policy, retrieval)
