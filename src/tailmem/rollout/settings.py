"""The typed shape of a rollout's config (policy, retrieval, lengths, seed), checked before anything runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tailmem.errors import ConfigError

DESIGNS = ("none", "recency", "state_mate_uniform", "state_aware_frequency")  # paper 1, Table 8
SAMPLING_DESIGNS = ("state_mate_uniform", "state_aware_frequency")  # draw k uniforms per step
POLICIES = ("random_walk", "semantic", "llm")  # semantic: model-free proxy; llm: the policy role's model
# Where each episode starts (rollout/loop.py): a fresh uniform draw, the first episode's state every time, or where
# the previous episode ended. Paper 1 does not say; `uniform` is ours, the calibration study searches all three.
STARTS = ("uniform", "fixed", "continue")


def _count(value: Any, key: str, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ConfigError(f"{key}={value!r}: expected an integer >= {lo}")
    return value


@dataclass(frozen=True)
class RolloutSettings:
    """What one rollout needs besides the world: `episodes` x `steps` steps, one memory over all of them."""

    policy: str = "random_walk"
    retrieval: str = "none"
    k: int = 0  # retrieved items per step besides the current one (ignored by `none`)
    episodes: int = 1
    steps: int = 100
    seed: int = 0
    start: str = "uniform"  # start-state rule of every episode (STARTS)

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ConfigError(f"policy.name={self.policy!r}: unknown policy; expected one of {list(POLICIES)}")
        if self.retrieval not in DESIGNS:
            raise ConfigError(
                f"retrieval.name={self.retrieval!r}: unknown retrieval design; expected one of {list(DESIGNS)}"
            )
        _count(self.k, "retrieval.k", 0)
        _count(self.episodes, "rollout.episodes", 1)
        _count(self.steps, "rollout.steps", 1)
        _count(self.seed, "seed", 0)
        if self.start not in STARTS:
            raise ConfigError(f"rollout.start={self.start!r}: unknown start-state rule; expected one of {list(STARTS)}")

    @property
    def total_steps(self) -> int:
        return self.episodes * self.steps

    @property
    def retrieval_draws(self) -> int:
        """Uniforms the retrieval design consumes per step (k for the sampling designs, else 0)."""
        return self.k if self.retrieval in SAMPLING_DESIGNS else 0

    @classmethod
    def from_config(cls, cfg) -> "RolloutSettings":
        """From the resolved Hydra config (`policy.name`, `retrieval.name/k`, `rollout.episodes/steps/start`, `seed`)."""
        for key in (
            "policy.name",
            "retrieval.name",
            "retrieval.k",
            "rollout.episodes",
            "rollout.steps",
            "rollout.start",
            "seed",
        ):
            node = cfg
            for part in key.split("."):
                node = None if node is None else node.get(part) if hasattr(node, "get") else getattr(node, part, None)
            if node is None:
                raise ConfigError(f"{key} is missing")
        return cls(
            cfg.policy.name,
            cfg.retrieval.name,
            cfg.retrieval.k,
            cfg.rollout.episodes,
            cfg.rollout.steps,
            cfg.seed,
            cfg.rollout.start,
        )
