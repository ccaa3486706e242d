"""The pre-drawn uniforms that drive a rollout, so the numba kernel and the Python loop see the same numbers.

Three streams with their own derived seeds: episode starts, policy choices (one per step) and retrieval draws
(`retrieval_draws` per step, unused ones included, so step t always reads row t). Because the walk streams do not
depend on the retrieval design, a random walk is the same walk under every design for a seed: the retrieval
controls of Table 8 are matched on states and transitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tailmem.graphworld.seeds import derive_rng


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


def draw_uniforms(seed: int, episodes: int, steps: int, retrieval_draws: int) -> Uniforms:
    walk = derive_rng(seed, "walk")
    start = walk.random(episodes)
    policy = walk.random(episodes * steps)
    retrieval = derive_rng(seed, "retrieval").random((episodes * steps, retrieval_draws))
    return Uniforms(start, policy, retrieval)
