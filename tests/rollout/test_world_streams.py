"""Worlds of one seed are independent units: their walk, retrieval and goal streams are keyed by the world.

Keyed by the seed alone, every family's world of seed s started its episodes at the same fraction of its states
and took the same policy draws, so the random-walk claims that pool worlds over families had to treat the seeds
as their units (3 at the default scale: too few to decide)."""

import numpy as np
from omegaconf import OmegaConf

from tailmem.configs import config_dir
from tailmem.graphworld.build import world_from_config
from tailmem.rollout.randomness import draw_uniforms, world_seed
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import Semantic
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup


def test_two_families_with_one_seed_draw_different_streams_and_one_family_the_same():
    a, b = world_seed(1, "modular", 100), world_seed(1, "scale_free", 100)
    assert a != b and world_seed(1, "modular", 200) != a
    assert world_seed(1, "modular", 100) == a  # deterministic
    ua, ub = draw_uniforms(a, 3, 5, 2), draw_uniforms(b, 3, 5, 2)
    assert not np.allclose(ua.start, ub.start) and not np.allclose(ua.policy, ub.policy)


def test_the_rollout_of_a_world_reads_its_own_streams():
    length = RolloutGroup(episodes=4, steps=10, start="uniform")
    retrieval = RetrievalGroup(name="recency", k=2)
    worlds = [world_from_config({**_graph(f), "n": 60}, 3) for f in ("modular", "uniform")]
    starts = [rollout(w, length, retrieval, 3).states[::10] for w in worlds]
    fractions = [np.asarray(s) / 60 for s in starts]
    assert not np.allclose(fractions[0], fractions[1])  # the same seed no longer starts both at the same fraction
    again = rollout(worlds[0], length, retrieval, 3)
    assert np.array_equal(again.states, rollout(worlds[0], length, retrieval, 3).states)
    goals = [Semantic(w, 3).goal(0) / 60 for w in worlds]
    assert goals[0] != goals[1]


def _graph(family: str) -> dict:
    return OmegaConf.to_container(OmegaConf.load(config_dir() / "graph" / f"{family}.yaml"))
