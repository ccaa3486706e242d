"""What each retrieval design places into context, and that a rollout is reproducible from its seed."""

import numpy as np
import pytest

from tailmem.errors import ConfigError
from tailmem.graphworld.build import world_from_config
from tailmem.rollout.policy import Observation, Policy
from tailmem.rollout.run import rollout
from tailmem.settings.rollout import DESIGNS, PolicyGroup, RetrievalGroup, RolloutGroup


@pytest.fixture(scope="module")
def world():
    return world_from_config(dict(family="scale_free", n=60, m=2), seed=0)


def run(world, design, k=5, seed=0, episodes=10, steps=60):
    length = RolloutGroup(episodes=episodes, steps=steps, start="uniform")
    return rollout(world, length, RetrievalGroup(name=design, k=k), seed, progress=False)


def gini(x):
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    return float(np.sum((2 * np.arange(1, n + 1) - n - 1) * x) / (n * x.sum()))


def per_step(trace):
    return np.bincount(trace.access_step, minlength=trace.total_steps)


@pytest.mark.parametrize("design", DESIGNS)
def test_same_seed_same_trace_other_seed_other_trace(world, design):
    a, b, c = run(world, design), run(world, design), run(world, design, seed=1)
    for name in ("states", "actions", "episode", "access_step", "access_item", "counts"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.states, c.states)


def test_the_walk_is_matched_across_designs(world):
    """Only retrieval changes between designs: the same states and actions for a seed (Table 8's control)."""
    walks = [run(world, d) for d in DESIGNS]
    for trace in walks[1:]:
        assert np.array_equal(trace.states, walks[0].states) and np.array_equal(trace.actions, walks[0].actions)


def test_walk_shape_and_transitions(world):
    trace = run(world, "none", episodes=4, steps=25)
    assert trace.total_steps == 100 and trace.n == world.n
    assert np.array_equal(trace.episode, np.repeat(np.arange(4), 25))
    src = np.repeat(np.arange(world.n), np.diff(world.indptr))
    assert np.array_equal(src[trace.actions], trace.states)  # each action leaves the current state
    moves = world.targets[trace.actions]
    inside = trace.episode[1:] == trace.episode[:-1]
    assert np.array_equal(moves[:-1][inside], trace.states[1:][inside])  # ... and leads to the next state


def test_none_counts_are_visit_counts(world):
    trace = run(world, "none")
    assert np.array_equal(trace.counts, np.bincount(trace.states, minlength=trace.n))
    assert np.array_equal(trace.access_item, trace.states)


@pytest.mark.parametrize("k", [0, 1, 5])
def test_recency_accesses_the_distinct_recent_items(world, k):
    trace = run(world, "recency", k=k)
    assert per_step(trace).max() <= k + 1
    for t in range(trace.total_steps):
        items = trace.access_item[trace.access_step == t]
        window = trace.states[max(0, t - k) : t][::-1]
        expected = [s for i, s in enumerate(window) if s != trace.states[t] and s not in window[:i]]
        assert items[0] == trace.states[t] and list(items[1:]) == expected


@pytest.mark.parametrize("design", ["state_mate_uniform", "state_aware_frequency"])
def test_state_mates_are_stored_distinct_neighbours(world, design):
    k = 3
    trace = run(world, design, k=k)
    for t in range(trace.total_steps):
        s = trace.states[t]
        items = trace.access_item[trace.access_step == t][1:]
        stored = set(trace.states[:t].tolist())  # visited before step t
        mates = set(world.neighbors(s).tolist()) & stored
        assert len(items) == min(k, len(mates)) and len(set(items)) == len(items)
        assert set(items.tolist()) <= mates


def test_frequency_retrieval_concentrates_access(world):
    base = run(world, "none", episodes=20, steps=100)
    rich = run(world, "state_aware_frequency", episodes=20, steps=100)
    assert gini(rich.counts) > gini(base.counts)


def test_general_loop_passes_what_the_agent_sees(world):
    """A custom policy (the later LLM path) sees names and retrieved items, and observes the true next state."""

    class FirstAction(Policy):
        name = "first_action"

        def __init__(self):
            self.seen = []

        def choose(self, obs: Observation, u: float) -> int:
            self.seen.append(obs)
            return 0

        def observe(self, obs, action, next_state):
            assert next_state == world.step(obs.state, action)

    policy = FirstAction()
    length = RolloutGroup(episodes=2, steps=5, start="uniform")
    trace = rollout(world, length, RetrievalGroup(name="recency", k=2), 0, policy=policy)
    assert [o.t for o in policy.seen] == list(range(10))
    assert policy.seen[3].actions == world.actions(policy.seen[3].state)
    assert policy.seen[3].retrieved == tuple(trace.access_item[trace.access_step == 3][1:])
    assert np.array_equal(trace.actions, world.indptr[trace.states])


VALID = {
    RetrievalGroup: {"name": "recency", "k": 2},
    RolloutGroup: {"episodes": 1, "steps": 10, "start": "uniform"},
    PolicyGroup: {"name": "random_walk"},
}


@pytest.mark.parametrize(
    "group, field, value, key",
    [
        (RetrievalGroup, "name", "oracle", "retrieval.name"),
        (RetrievalGroup, "k", -1, "retrieval.k"),
        (RolloutGroup, "episodes", 0, "rollout.episodes"),
        (RolloutGroup, "steps", 0, "rollout.steps"),
        (PolicyGroup, "name", "greedy", "policy.name"),
        (RolloutGroup, "start", "hub", "rollout.start"),
    ],
)
def test_bad_rollout_settings_name_their_key(group, field, value, key):
    with pytest.raises(ConfigError, match=f"^{key}="):
        group(**{**VALID[group], field: value})
