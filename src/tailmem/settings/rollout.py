"""The `rollout`, `policy` and `retrieval` groups: what a random-walk or model rollout runs. A rollout
(tailmem.rollout.run.rollout) reads these objects themselves. The names they are checked against (designs,
policies, start rules) are defined here, in the schema that accepts them, and the rollout code imports them from
here: the settings sit below the rollout, so a check never reaches up for its names."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems

DESIGNS = ("none", "recency", "state_mate_uniform", "state_aware_frequency")  # paper 1, Table 8
SAMPLING_DESIGNS = ("state_mate_uniform", "state_aware_frequency")  # draw k uniforms per step
POLICIES = ("random_walk", "semantic", "llm")  # semantic: model-free proxy; llm: the policy role's model
# Where each episode starts (rollout/loop.py): a fresh uniform draw, the first episode's state every time, or where
# the previous episode ended. Paper 1 does not say; `uniform` is ours, the calibration study searches all three.
STARTS = ("uniform", "fixed", "continue")


@dataclass
class RolloutGroup:
    episodes: int = MISSING  # episodes per run; memory persists across episodes
    steps: int = MISSING  # steps per episode
    start: str = MISSING  # start-state rule of every episode (STARTS)
    model_episodes: Optional[int] = None  # episodes of a rollout a model plays (policy llm); None = `episodes`

    def __post_init__(self) -> None:
        p = Problems("rollout")
        p.integer("episodes", self.episodes, lo=1)
        p.integer("steps", self.steps, lo=1)
        p.one_of("start", self.start, STARTS)
        if self.model_episodes is not None:
            p.integer("model_episodes", self.model_episodes, lo=1)
        p.raise_any()

    def for_policy(self, policy: str) -> "RolloutGroup":
        """The length a rollout of `policy` plays. A model's step costs seconds where the random walk's costs
        microseconds, so a scale sizes the model's traces by its budget (`model_episodes`); the claims that set
        the model beside the random walk read the walk's trace over the model's steps (same world, same length)."""
        if policy != "llm" or self.model_episodes is None:
            return self
        return replace(self, episodes=int(self.model_episodes), model_episodes=None)

    @property
    def total_steps(self) -> int:
        return self.episodes * self.steps


@dataclass
class PolicyGroup:
    name: str = MISSING  # POLICIES

    def __post_init__(self) -> None:
        p = Problems("policy")  # the config group, not the role
        p.one_of("name", self.name, POLICIES)
        p.raise_any()


@dataclass
class RetrievalGroup:
    name: str = MISSING  # a retrieval design (DESIGNS)
    k: int = MISSING  # retrieved items per step besides the current one

    def __post_init__(self) -> None:
        p = Problems("retrieval")
        p.one_of("name", self.name, DESIGNS)
        p.integer("k", self.k, lo=0)
        p.raise_any()

    @property
    def draws(self) -> int:
        """Uniforms the design consumes per step: k for the sampling designs, which draw among a state's mates;
        none for the others, which retrieve deterministically."""
        return self.k if self.name in SAMPLING_DESIGNS else 0
