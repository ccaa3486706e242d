"""A random-walk access protocol: the settings paper 1 leaves open, and the space the calibration searches.

Paper 1 gives the random walk's concentration (Tables 2, 7, 8) but not how long its walks were, where they started,
how far back the recency window reached, nor exactly over what its metrics were taken. A Protocol fixes each:
`episodes` x `steps` (the walk's length, one memory over all episodes), `start` (settings.rollout.STARTS), `k`
(the recency window in steps, and the most items the state-mate designs retrieve), `items` (concentration over every
state, never-accessed ones as zeros, or over the stored items only: the states visited at least once) and
`sigma_unit` (sigma_top10 in units of the mean count, or in raw access counts, the paper's literal wording). The first
four decide the walk (a `Walk`), the last two only how its counts are read, so one walk serves four protocols.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass

import numpy as np

from tailmem.settings.calibration import SpaceGroup

WALK_FIELDS = ("episodes", "steps", "start", "k")


@dataclass(frozen=True, order=True)
class Walk:
    """The part of a protocol that decides the rollouts."""

    episodes: int
    steps: int
    start: str
    k: int

    @property
    def key(self) -> str:
        """A readable file-name key, e.g. `e10-s50-uniform-k5`."""
        return f"e{self.episodes}-s{self.steps}-{self.start}-k{self.k}"


@dataclass(frozen=True, order=True)
class Protocol:
    """One point of the searched space."""

    episodes: int
    steps: int
    start: str
    k: int
    items: str
    sigma_unit: str

    @property
    def walk(self) -> Walk:
        return Walk(self.episodes, self.steps, self.start, self.k)

    @property
    def key(self) -> str:
        return f"{self.walk.key}-{self.items}-{self.sigma_unit}"

    def to_dict(self) -> dict:
        return asdict(self)


def grid(space: SpaceGroup) -> list[Protocol]:
    """Every protocol of the space, in a stable order."""
    axes = (space.episodes, space.steps, space.start, space.k, space.items, space.sigma_unit)
    return [Protocol(*values) for values in itertools.product(*axes)]


def sample(space: SpaceGroup, count: int | None, seed: int) -> list[Protocol]:
    """`count` protocols of the space drawn without replacement with a seeded numpy generator (all of them when
    `count` is None or at least the grid's size), sorted so that protocols sharing a walk come together."""
    every = grid(space)
    if count is None or count >= len(every):
        return every
    picked = np.random.default_rng(seed).choice(len(every), size=count, replace=False)
    return sorted(every[i] for i in picked)
