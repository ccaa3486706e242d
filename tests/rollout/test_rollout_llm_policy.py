"""The LLM policy's one-turn prompt (a scoring-only model's): the semantic proxy's memory lines, laid out stable-prefix first (instruction, goal,
memory oldest first, current state last), so a model that keeps its KV prefix evaluates only what changed."""

import numpy as np
import pytest

from tailmem.agents.graphworld import format_transition
from tailmem.graphworld.build import world_from_config
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import GoalDirected, LLMPolicy
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup


@pytest.fixture(scope="module")
def world():
    return world_from_config(dict(family="scale_free", n=60, m=2), seed=0)


class FakeClient:
    """A scoring-only model (as the `local` backend): picks an action from a seeded generator, recording every
    prompt. Such a model gets the one-turn prompt (a chat model's episode chat: test_rollout_llm_chat.py)."""

    backend, model, chats = "fake", "fake-model", False

    def __init__(self):
        self.calls: list[tuple[str, list[str]]] = []
        self.rng = np.random.default_rng(0)

    def choose(self, prompt, options):
        self.calls.append((prompt, list(options)))
        return int(self.rng.integers(len(options)))


class Recording(LLMPolicy):
    """Keeps each step's observation and the proxy's memory lines (GoalDirected.memory_texts) beside the prompt."""

    def __init__(self, *a):
        super().__init__(*a)
        self.seen = []

    def choose(self, obs, u):
        calls, seen = self.calls, (obs, GoalDirected.memory_texts(self, obs), self.goal(obs.episode))
        chosen = super().choose(obs, u)
        if self.calls > calls:  # asked (an exploring step or one action left asks nothing)
            self.seen.append((*seen, [obs.actions[a] for a in self.allowed(obs)]))
        return chosen


@pytest.fixture(scope="module")
def run(world):
    client = FakeClient()
    policy = Recording(world, 0, client)
    length = RolloutGroup(episodes=3, steps=20, start="uniform")
    trace = rollout(world, length, RetrievalGroup(name="recency", k=5), 0, policy=policy)
    return client, policy, trace


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def test_the_prompt_is_instruction_goal_memory_then_the_current_state(world, run):
    client, policy, trace = run
    assert policy.agent == "fake:fake-model" and len(client.calls) == len(policy.seen) == policy.calls > 40
    for (prompt, options), (obs, proxy_lines, goal, offered) in zip(client.calls, policy.seen):
        head, rest = prompt.split("\nGoal: ", 1)
        assert head == LLMPolicy.INSTRUCTION
        goal_line, rest = rest.split("\nMemory of paths taken (oldest first):\n", 1)
        assert goal_line == world.state_texts[goal]
        memory, here = rest.rsplit("\nYou are at: ", 1)
        assert here == world.state_texts[obs.state] and options == offered
        lines = [] if memory == "(nothing yet)" else memory.split("\n")
        assert sorted(lines) == sorted(proxy_lines)  # the proxy's lines, no more and no fewer


def test_memory_lines_come_in_the_order_their_transitions_were_first_observed(world, run):
    client, policy, trace = run
    first: dict[str, int] = {}
    for t, (s, e) in enumerate(zip(trace.states, trace.actions)):
        line = format_transition(world.state_texts[s], world.action_names[e], world.state_texts[world.targets[e]])
        first.setdefault(line, t)
    for prompt, _ in client.calls[1:]:
        memory = prompt.split("(oldest first):\n", 1)[1].rsplit("\nYou are at: ", 1)[0]
        lines = [] if memory == "(nothing yet)" else memory.split("\n")
        assert [first[x] for x in lines] == sorted(first[x] for x in lines)


def test_consecutive_prompts_of_an_episode_share_the_instruction_and_goal(run):
    client, policy, _ = run
    shared = []
    for k in range(1, len(client.calls)):
        (a, _), (b, _) = client.calls[k - 1], client.calls[k]
        (_, _, goal_a, _), (_, _, goal_b, _) = policy.seen[k - 1], policy.seen[k]
        if goal_a == goal_b:
            assert a.split("Memory of paths taken", 1)[0] == b.split("Memory of paths taken", 1)[0]
            shared.append(_common_prefix(a, b) / len(b))
    # the stable prefix reaches into the memory list on average, not only the instruction and goal
    assert shared and np.mean(shared) > 0.4
