"""The policy interface: what the agent sees at a step and how it chooses an action.

A policy gets an Observation (state, action names, the items retrieved into context this step) and the step's
policy uniform, and returns an action index (0 .. degree - 1, ascending-neighbour order). After the move, the
loop reports the true next state through `observe`, where a policy with its own memory writes it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True)
class Observation:
    """What the agent knows when it chooses: no destinations, only names and the retrieved items."""

    t: int  # global step (0 .. episodes * steps - 1); memory persists across episodes
    episode: int
    state: int
    actions: tuple[str, ...]  # names of the state's actions, in action-index order
    retrieved: tuple[int, ...]  # items placed into context this step besides `state`, in access order


class Policy(ABC):
    """Base class: chooses an action index; `observe` is a no-op unless the policy keeps its own memory."""

    name = "policy"  # the base class, not the role

    @abstractmethod
    def choose(self, obs: Observation, u: float) -> int:
        """The action index (0 .. len(obs.actions) - 1) to take, given the step's policy uniform `u`."""

    def observe(self, obs: Observation, action: int, next_state: int) -> None:
        """The true next state after `action` (step (d) of the agent loop)."""


class RandomWalk(Policy):
    """Uniform over the state's actions; ignores memory. Action floor(u * degree), as in the numba kernel."""

    name = "random_walk"

    def choose(self, obs: Observation, u: float) -> int:
        return min(int(u * len(obs.actions)), len(obs.actions) - 1)
