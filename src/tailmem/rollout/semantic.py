"""Goal-directed policies: each episode has a goal state; the agent picks the action that looks closest to it.

`semantic` is the model-free proxy (the programmatic-semantic agent over state texts, action names and the
transitions its retrieved memory holds); `llm` asks the configured policy model to choose among the action names.
Both see the same things: the state text, the goal text, the action names and the retrieved memory texts.
"""

from __future__ import annotations

from tailmem.agents.graphworld import POLICY_AGENT, choose_action, format_transition
from tailmem.graphworld.seeds import derive_rng
from tailmem.graphworld.world import World
from tailmem.rollout.policy import Observation, Policy
from tailmem.rollout.randomness import world_seed


class GoalDirected(Policy):
    """Base: a goal per episode (a new one once reached), memory of observed transitions, memory texts."""

    def __init__(self, world: World, seed: int):
        self.world = world
        self._rng = derive_rng(world_seed(seed, world.family, world.n), "goals")
        self._goal: dict[int, int] = {}
        self.known: dict[int, dict[int, int]] = {}  # state -> {action index: next state}

    def goal(self, episode: int) -> int:
        if episode not in self._goal:
            self._goal = {episode: int(self._rng.integers(self.world.n))}  # past episodes' goals are not needed
        return self._goal[episode]

    def memory_texts(self, obs: Observation) -> list[str]:
        """The transitions known from the current and retrieved states, as memory texts."""
        texts = []
        for s in (obs.state, *obs.retrieved):
            for a, nxt in self.known.get(s, {}).items():
                texts.append(
                    format_transition(self.world.state_texts[s], self.world.actions(s)[a], self.world.state_texts[nxt])
                )
        return texts

    def observe(self, obs: Observation, action: int, next_state: int) -> None:
        self.known.setdefault(obs.state, {})[action] = next_state
        if next_state == self._goal.get(obs.episode):
            self._goal[obs.episode] = int(self._rng.integers(self.world.n))


class Semantic(GoalDirected):
    """The model-free proxy for an LLM policy, always labelled as such.

    Like a sampled model it is not a pure argmax: with probability `explore` (the step's policy uniform) it takes
    a uniformly chosen action, and it avoids actions it remembers leading back to the last `tabu` states, which
    would otherwise trap a deterministic scorer in back-and-forth loops.
    """

    name = "semantic"
    agent = POLICY_AGENT

    def __init__(self, world: World, seed: int, explore: float = 0.1, tabu: int = 4):
        super().__init__(world, seed)
        self.explore, self.tabu = explore, tabu
        self._recent: list[int] = []

    def choose(self, obs: Observation, u: float) -> int:
        self._recent = (self._recent + [obs.state])[-self.tabu :]
        if u < self.explore:
            return min(int(u / self.explore * len(obs.actions)), len(obs.actions) - 1)
        known = self.known.get(obs.state, {})
        allowed = [a for a in range(len(obs.actions)) if known.get(a) not in self._recent] or list(
            range(len(obs.actions))
        )
        goal = self.world.state_texts[self.goal(obs.episode)]
        pick = choose_action(
            self.world.state_texts[obs.state], [obs.actions[a] for a in allowed], goal, self.memory_texts(obs)
        )
        return allowed[pick]


class LLMPolicy(GoalDirected):
    """A configured model chooses among the action names (chat models by number, scoring models by likelihood).

    The prompt is laid out stable-prefix first, so a model that keeps the KV cache of the previous call (the
    embedded backend, llama.cpp) evaluates only what changed: the fixed instruction, then the goal (fixed for an
    episode), then the memory texts in the order their transitions were first observed (oldest first: consecutive
    steps share most of the list's head), and last the current state. The memory holds the same lines as the
    semantic proxy's (`memory_texts`), only ordered by time rather than by state. Prompt tokens the embedded model
    evaluates per step (Qwen2.5-Coder-1.5B's tokenizer, the semantic proxy's smoke trajectory, modular, 60 states,
    5 x 40 steps): 358 instead of 523 with the state-first layout; with the model choosing (modular, 30 states,
    10 steps, the same moves under both layouts): 201 instead of 258, 7.2 s per step instead of 8.3 on 1 thread.
    """

    name = "llm"
    INSTRUCTION = (
        "You are exploring a world of connected places and want to reach a goal. Given the goal, your "
        "memory of the paths taken and where you are now, choose the path that brings you closer to "
        "the goal."
    )

    def __init__(self, world: World, seed: int, client):
        super().__init__(world, seed)
        self.client = client
        self.agent = f"{client.backend}:{client.model}"
        self._learned: dict[tuple[int, int], int] = {}  # (state, action) -> order of first observation

    def memory_texts(self, obs: Observation) -> list[str]:
        """The proxy's memory lines (transitions known from the current and retrieved states), oldest first."""
        keys = [(s, a) for s in dict.fromkeys((obs.state, *obs.retrieved)) for a in self.known.get(s, {})]
        keys.sort(key=self._learned.__getitem__)
        texts = self.world.state_texts
        return [format_transition(texts[s], self.world.actions(s)[a], texts[self.known[s][a]]) for s, a in keys]

    def observe(self, obs: Observation, action: int, next_state: int) -> None:
        self._learned.setdefault((obs.state, action), len(self._learned))
        super().observe(obs, action, next_state)

    def prompt(self, obs: Observation) -> str:
        memory = "\n".join(self.memory_texts(obs)) or "(nothing yet)"
        return (
            f"{self.INSTRUCTION}\n"
            f"Goal: {self.world.state_texts[self.goal(obs.episode)]}\n"
            f"Memory of paths taken (oldest first):\n{memory}\n"
            f"You are at: {self.world.state_texts[obs.state]}"
        )

    def choose(self, obs: Observation, u: float) -> int:
        return self.client.choose(self.prompt(obs), list(obs.actions))
