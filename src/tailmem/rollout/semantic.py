"""Goal-directed policies: each episode has a goal state; the agent picks the action that looks closest to it.

`semantic` is the model-free proxy (the programmatic-semantic agent over state texts, action names and the
transitions its retrieved memory holds); `llm` asks the configured policy model to choose among the action names.
Both see the same things: the state text, the goal text, the action names and the retrieved memory texts.
"""

from __future__ import annotations

from tailmem.agents.graphworld import POLICY_AGENT, choose_action, format_transition
from tailmem.graphworld.seeds import derive_rng
from tailmem.graphworld.world import World
from tailmem.llm import choose as choosing
from tailmem.llm.tokens import count_message_tokens
from tailmem.rollout.policy import Observation, Policy
from tailmem.rollout.randomness import world_seed


class GoalDirected(Policy):
    """Base: a goal per episode (a new one once reached), memory of observed transitions, memory texts."""

    def __init__(self, world: World, seed: int, explore: float = 0.1, tabu: int = 4):
        self.world = world
        self._rng = derive_rng(world_seed(seed, world.family, world.n), "goals")
        self._goal: dict[int, int] = {}
        self.known: dict[int, dict[int, int]] = {}  # state -> {action index: next state}
        self.explore, self.tabu = explore, tabu
        self._recent: list[int] = []

    def explored(self, obs: Observation, u: float) -> int | None:
        """The uniformly chosen action of an exploring step (the step's policy uniform below `explore`), else None.

        Every goal-directed policy explores on the same steps and keeps the same tabu list, so the semantic proxy
        and the model differ in the chooser alone: a greedy chooser (a scorer, or a model decoded greedily)
        would otherwise loop between two places it rates alike."""
        self._recent = (self._recent + [obs.state])[-self.tabu :]
        if u < self.explore:
            return min(int(u / self.explore * len(obs.actions)), len(obs.actions) - 1)
        return None

    def allowed(self, obs: Observation) -> list[int]:
        """The actions not remembered to lead back to the last `tabu` states (all of them if none is left)."""
        known = self.known.get(obs.state, {})
        n = len(obs.actions)
        return [a for a in range(n) if known.get(a) not in self._recent] or list(range(n))

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

    Like a sampled model it is not a pure argmax: it explores and keeps a tabu list (`GoalDirected.explored`,
    `GoalDirected.allowed`), as the LLM policy does.
    """

    name = "semantic"
    agent = POLICY_AGENT

    def choose(self, obs: Observation, u: float) -> int:
        uniform = self.explored(obs, u)
        if uniform is not None:
            return uniform
        allowed = self.allowed(obs)
        goal = self.world.state_texts[self.goal(obs.episode)]
        pick = choose_action(
            self.world.state_texts[obs.state], [obs.actions[a] for a in allowed], goal, self.memory_texts(obs)
        )
        return allowed[pick]


class LLMPolicy(GoalDirected):
    """A configured model chooses among the action names: a chat model in one chat per episode, a scoring-only
    model (`local`) from a one-turn prompt. It explores on the proxy's steps and is offered only the actions the
    proxy's tabu rule allows (`GoalDirected.explored`, `allowed`); neither kind of step left with one action asks
    the model anything.

    The chat (why: a step should cost what llama.cpp needs, the tokens it has not seen). The system turn holds the
    instruction (and asks for an option's number); each step appends one user turn: the goal (on the chat's first turn, and again when a reached
    goal is replaced), the memory lines of this step's retrieved memory (the semantic proxy's lines,
    `memory_texts`) that the chat has not shown yet, oldest first, where the agent is, and the numbered options.
    The model's reply, its option's number (decoded under a grammar of the numbers where the backend can: 1-2
    tokens), stays in the chat. So each prompt extends the previous one and a model that keeps the KV of the
    shared prefix (the embedded backend) evaluates only the new turn. A move the chat made is not shown again as
    a memory line: its turn, the reply and the next turn's "You are at" say it.

    How this differs from the one-turn layout (`prompt`, still used for scoring models): the model sees every
    memory line shown earlier in the episode's chat, not only those retrieved at this step, and its own earlier
    turns; the memory it *accesses* (the trace) is the retriever's either way. A chat starts afresh (instruction,
    goal, all memory retrieved at that step) at each episode and before its estimated prompt tokens would pass
    `max_chat_tokens` (llm.roles.policy.compact_prompt_tokens, which the embedded preset keeps below n_ctx).

    Each step is a chat request keyed by the whole chat (tailmem.llm.client.LLMClient.choose_in_chat): the chat is
    a function of the trajectory, so a killed rollout re-run from its start replays its steps from the call cache
    with no model call, and a replay backend plays it with none at all. A served model receives the same
    messages; one answering freely is re-asked when its reply names no option, and the chat keeps the number it
    finally named (`malformed` counts the replies that named none).

    Measured (benchmarks/bench_policy_step.py: the shipped modular world, 80 states, 2 x 30 steps, both layouts
    asked on the same observations, one thread on a shared machine): 140 prompt tokens evaluated per call against
    296 for the one-turn prompt, 10.5 s against 16.5. The new turn is the bound: the place and its options alone
    are about 90 tokens.
    """

    name = "llm"
    INSTRUCTION = (
        "You are exploring a world of connected places and want to reach a goal. Given the goal, your "
        "memory of the paths taken and where you are now, choose the path that brings you closer to "
        "the goal."
    )
    SYSTEM = f"{INSTRUCTION} Reply with the number of one option only."  # the chat's first turn
    REPLY_TOKENS = 8  # room kept for the reply (an option's number) and its framing

    def __init__(self, world: World, seed: int, client, one_turn: bool | None = None, max_chat_tokens=None):
        super().__init__(world, seed)
        self.client = client
        self.agent = f"{client.backend}:{client.model}"
        self._learned: dict[tuple[int, int], int] = {}  # (state, action) -> order of first observation
        self.one_turn = not client.chats if one_turn is None else one_turn
        if max_chat_tokens is None and not self.one_turn:
            max_chat_tokens = client.settings.compact_prompt_tokens
        self.max_chat_tokens: int | None = max_chat_tokens
        self.calls = 0  # steps the model was asked
        self.malformed = 0  # replies that named no option (0 under a grammar)
        self._chat: list[dict] = []
        self._chat_tokens = 0  # estimated prompt tokens of the chat so far
        self._chat_episode: int | None = None
        self._stated_goal: int | None = None
        self._shown: set[str] = set()  # memory lines the chat holds
        self._asked: int | None = None  # the last step the chat asked the model about
        self._asked_action: int | None = None  # the action its reply chose
        self.explored_steps = 0  # exploring steps (a uniform action, no call)
        self.one_path = 0  # steps the tabu rule or the world left one action (no call)

    def memory_texts(self, obs: Observation) -> list[str]:
        """The proxy's memory lines (transitions known from the current and retrieved states), oldest first."""
        keys = [(s, a) for s in dict.fromkeys((obs.state, *obs.retrieved)) for a in self.known.get(s, {})]
        keys.sort(key=self._learned.__getitem__)
        return [self._line(s, a, self.known[s][a]) for s, a in keys]

    def _line(self, state: int, action: int, next_state: int) -> str:
        texts = self.world.state_texts
        return format_transition(texts[state], self.world.actions(state)[action], texts[next_state])

    def observe(self, obs: Observation, action: int, next_state: int) -> None:
        self._learned.setdefault((obs.state, action), len(self._learned))
        if self._asked == obs.t and self._asked_action == action:  # the move the chat replied:
            self._shown.add(self._line(obs.state, action, next_state))  # its turn, the reply, the next "You are at"
        super().observe(obs, action, next_state)

    def prompt(self, obs: Observation) -> str:
        """The one-turn layout: instruction, goal, this step's memory lines oldest first, the current state."""
        memory = "\n".join(self.memory_texts(obs)) or "(nothing yet)"
        return (
            f"{self.INSTRUCTION}\n"
            f"Goal: {self.world.state_texts[self.goal(obs.episode)]}\n"
            f"Memory of paths taken (oldest first):\n{memory}\n"
            f"You are at: {self.world.state_texts[obs.state]}"
        )

    def _turn(self, obs: Observation, options: list[str]) -> str:
        """This step's user turn: the goal if the chat has not stated it, new memory lines, place and options."""
        parts = []
        goal = self.goal(obs.episode)
        if goal != self._stated_goal:
            said = "Goal" if self._stated_goal is None else "You reached the goal. New goal"
            parts.append(f"{said}: {self.world.state_texts[goal]}")
        new = [line for line in self.memory_texts(obs) if line not in self._shown]
        if new:
            parts.append("Memory of paths taken:\n" + "\n".join(new))
        parts.append(f"You are at: {self.world.state_texts[obs.state]}\nOptions:\n{choosing.listing(options)}")
        return "\n".join(parts)

    def _open_chat(self, episode: int) -> None:
        system = {"role": "system", "content": self.SYSTEM}
        self._chat, self._chat_tokens = [system], count_message_tokens([system])
        self._chat_episode, self._stated_goal, self._shown = episode, None, set()

    def messages(self, obs: Observation, options: list[str]) -> list[dict]:
        """The episode's chat with this step's user turn appended (not yet kept: `choose` keeps it with the reply);
        a fresh chat at a new episode or where the turn would take the chat past `max_chat_tokens`."""
        if obs.episode != self._chat_episode:
            self._open_chat(obs.episode)
        turn = {"role": "user", "content": self._turn(obs, options)}
        full = self._chat_tokens + count_message_tokens([turn]) + self.REPLY_TOKENS
        if self.max_chat_tokens and full > self.max_chat_tokens:
            self._open_chat(obs.episode)
            turn = {"role": "user", "content": self._turn(obs, options)}
        return [*self._chat, turn]

    def choose(self, obs: Observation, u: float) -> int:
        uniform = self.explored(obs, u)
        if uniform is not None:
            self.explored_steps += 1  # the proxy's exploring step: no call, the chat does not see it
            return uniform
        allowed = self.allowed(obs)
        if len(allowed) == 1:
            self.one_path += 1  # nothing to ask: the chat does not see this step
            return allowed[0]
        options = [obs.actions[a] for a in allowed]
        if self.one_turn:
            self.calls += 1
            return allowed[self.client.choose(self.prompt(obs), options)]
        messages = self.messages(obs, options)
        index, replies = self.client.choose_in_chat(messages, options)
        self.calls += 1
        self.malformed += sum(choosing.parse(r, options) is None for r in replies)
        reply = {"role": "assistant", "content": str(index + 1)}
        self._chat = [*messages, reply]
        self._chat_tokens += count_message_tokens([messages[-1], reply])
        self._stated_goal = self.goal(obs.episode)
        self._shown.update(self.memory_texts(obs))
        self._asked, self._asked_action = obs.t, allowed[index]
        return allowed[index]
