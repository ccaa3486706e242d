"""A model that answers the same option number wherever it is (as a greedy 1.5B model often does) must not trap
the LLM policy in a back-and-forth between two places: the LLM policy keeps the semantic proxy's exploration and
tabu rule, so the two policies differ in the chooser alone."""

import pytest

from tailmem.graphworld.build import world_from_config
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import LLMPolicy, Semantic
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup

LENGTH = RolloutGroup(episodes=2, steps=60, start="uniform")


class FirstOption:
    """A chat model that always answers option 1 (a deterministic, memory-blind chooser)."""

    backend, model, chats = "fake", "first-option", True

    class settings:  # noqa: N801 - the role settings the policy reads
        compact_prompt_tokens = None

    def __init__(self):
        self.offered: list[list[str]] = []

    def choose_in_chat(self, messages, options):
        self.offered.append(list(options))
        return 0, ["1"]


@pytest.fixture(scope="module")
def world():
    return world_from_config(dict(family="scale_free", n=80, m=2), seed=0)


def _longest_two_state_cycle(states) -> int:
    """The most consecutive steps spent alternating between the same two states."""
    best = run = 0
    for i in range(2, len(states)):
        run = run + 1 if states[i] == states[i - 2] and states[i] != states[i - 1] else 0
        best = max(best, run)
    return best


class Walked(LLMPolicy):
    """Keeps the state of every step."""

    def choose(self, obs, u):
        self.states = [*getattr(self, "states", []), obs.state]
        return super().choose(obs, u)


def test_a_model_that_always_answers_one_does_not_loop_between_two_places(world):
    policy = Walked(world, 0, FirstOption())
    rollout(world, LENGTH, RetrievalGroup(name="recency", k=5), 0, policy=policy)
    states = policy.states[: LENGTH.steps]
    assert _longest_two_state_cycle(states) < 8, states
    assert len(set(states)) > 10


def test_the_model_is_offered_what_the_proxy_may_choose_and_explores_where_it_does(world):
    """Same world, seed and uniforms: the model's policy takes a uniform action exactly where the proxy does (no
    call there), and is offered the actions the proxy's tabu rule allows."""
    client = FirstOption()
    llm = LLMPolicy(world, 0, client)
    proxy = Semantic(world, 0)
    assert (llm.explore, llm.tabu) == (proxy.explore, proxy.tabu)
    rollout(world, LENGTH, RetrievalGroup(name="recency", k=5), 0, policy=llm)
    asked_or_free = llm.calls + llm.explored_steps + llm.one_path
    assert asked_or_free == LENGTH.total_steps
    assert 0 < llm.explored_steps < 0.25 * LENGTH.total_steps
