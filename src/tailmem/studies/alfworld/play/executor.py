"""Execution agents: one action per step from the task, the retrieved guidance, the memory block, the current
observation and the admissible commands.

`ProgrammaticExecutor` (offline) parses the goal and acts by a fixed procedure; everything it knows beyond the
current observation comes from the memory block (where it has been, what it saw) and the guidance (where objects
of a kind were found before, which receptacle a verb needs), so memory and skills change what it does.
Without guidance it does not know which receptacle cleans, heats or cools: it carries the object around until
the admissible commands offer the verb. `ReactExecutor` asks a model to reason, then name one admissible action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tailmem.roles import EXECUTOR, plays_model, programmatic_agent
from tailmem.settings.alfworld import EXECUTORS  # `alfworld.model_executor`'s values, named by the group's schema
from tailmem.studies.alfworld.play.goal import Goal, kind, seen_objects
from tailmem.studies.alfworld.play.guidance import Priors, priors
from tailmem.studies.alfworld.play.observations import Knowledge

_ARRIVE = re.compile(r"You arrive at ([a-z]+ \d+)\.")
_PICK = re.compile(r"You pick up the ([a-z]+ \d+) from the ([a-z]+ \d+)\.")
_MOVE = re.compile(r"You move the ([a-z]+ \d+) to the ([a-z]+ \d+)\.")
_DONE_VERB = re.compile(r"You (clean|heat|cool) the ([a-z]+ \d+) using")
_ACTION = re.compile(r"<action>\s*(.+?)\s*</action>", re.S)


@dataclass(frozen=True)
class StepInput:
    goal: Goal
    observation: str
    admissible: tuple[str, ...]
    memory: str  # the memory block the controller built
    guidance: str  # retrieved skills / notes / logs, "" without a store
    step: int


@dataclass
class Scratch:
    """The executor's working state within one episode (perception of its own last actions, not memory)."""

    location: str | None = None
    holding: str | None = None
    treated: bool = False
    used_tool: bool = False
    placed: list = field(default_factory=list)
    tried_with_object: set = field(default_factory=set)
    closed_here: bool = False


class ProgrammaticExecutor:
    """Goal-driven procedure over admissible commands; see the module docstring."""

    agent = programmatic_agent(EXECUTOR)

    def __init__(self):
        self.s = Scratch()
        self._priors: Priors | None = None

    def reset(self) -> None:
        self.s = Scratch()
        self._priors = None

    def observe(self, command: str, text: str) -> None:
        """Update the scratch state from the feedback of the last command."""
        s = self.s
        if m := _ARRIVE.search(text):
            s.location = m.group(1)
            s.closed_here = "is closed" in text
        if text.startswith("You open the"):
            s.closed_here = False
        if m := _PICK.search(text):
            s.holding = m.group(1)
        if m := _MOVE.search(text):
            s.placed.append(m.group(1))
            s.holding, s.treated = None, False
        if _DONE_VERB.search(text):
            s.treated = True
        if text.startswith("You turn on"):
            s.used_tool = True

    def act(self, x: StepInput) -> str:
        if self._priors is None:
            self._priors = priors(x.guidance, x.goal)
        s, g, adm = self.s, x.goal, x.admissible
        know = Knowledge.read(x.memory)
        here = s.location
        goto = [a[len("go to ") :] for a in adm if a.startswith("go to ")]

        def first(cands):
            return next((c for c in cands if c in adm), None)

        if s.holding is None:
            if g.family == "look_at_obj_in_light" and s.used_tool:
                return first(["look"]) or adm[0]
            take = [a for a in adm if a.startswith(f"take {g.obj} ") and not _from_target(a, g, s)]
            if take:
                return take[0]
            if here and s.closed_here and f"open {here}" in adm:
                return f"open {here}"
            return self._go(self._search_order(goto, know, g, avoid_target=g.count > 1), adm)
        # holding the goal object
        if g.family == "look_at_obj_in_light":
            use = [a for a in adm if a.startswith(f"use {g.tool}")]
            if use:
                return use[0]
            known = [loc for loc in know.where(g.tool) if loc != here]
            return self._go(known + self._explore(goto, know, here), adm)
        if g.verb and not s.treated:
            verb = [a for a in adm if a.startswith(f"{g.verb} {s.holding} with ")]
            if verb:
                return verb[0]
            if here:
                s.tried_with_object.add(here)
            if self._priors.appliance:
                cands = [loc for loc in goto if kind(loc) == self._priors.appliance]
            else:  # no guidance: carry the object to every receptacle in turn until the verb is offered
                cands = [loc for loc in goto if loc not in s.tried_with_object]
            return self._go(cands, adm)
        put = [a for a in adm if a.startswith(f"move {s.holding} to {g.target} ")]
        if put:
            return put[0]
        if here and kind(here) == g.target and s.closed_here and f"open {here}" in adm:
            return f"open {here}"
        return self._go([loc for loc in goto if kind(loc) == g.target], adm)

    def _search_order(self, goto, know: Knowledge, g: Goal, avoid_target: bool) -> list[str]:
        here = self.s.location
        known = [loc for loc in know.where(g.obj) if loc != here and not (avoid_target and kind(loc) == g.target)]
        return known + self._explore(goto, know, here, g if avoid_target else None)

    def _explore(self, goto, know: Knowledge, here, skip_target: Goal | None = None) -> list[str]:
        """Unvisited locations (as far as the memory block shows), guided kinds first, then the rest."""
        rank = {k: i for i, k in enumerate(self._priors.search)}
        fresh = [
            loc
            for loc in goto
            if loc not in know.visited and loc != here and not (skip_target and kind(loc) == skip_target.target)
        ]
        fresh.sort(key=lambda loc: (rank.get(kind(loc), len(rank)), goto.index(loc)))
        if fresh:
            return fresh
        return [loc for loc in goto if loc != here]  # everything shown as visited: search again, in order

    @staticmethod
    def _go(cands, adm) -> str:
        for loc in cands:
            if f"go to {loc}" in adm:
                return f"go to {loc}"
        return "look" if "look" in adm else adm[0]


def _from_target(action: str, g: Goal, s: Scratch) -> bool:
    """For two objects: do not take back one already placed in the target."""
    parts = action.split(" from ")
    obj = parts[0][len("take ") :]
    return obj in s.placed or (g.count > 1 and len(parts) > 1 and kind(parts[1]) == g.target and bool(s.placed))


REACT_SYSTEM = (
    "You are an agent in a household text environment. Reach the task's goal in as few actions as possible.\n"
    "Each turn you get the current observation, your memory and the admissible actions. Reply with your "
    "reasoning inside <think></think>, then exactly one admissible action inside <action></action>."
)


class ReactExecutor:
    """A model executor in ReAct style: reasoning, then one action; a non-admissible action is an invalid one."""

    def __init__(self, client):
        self.client = client
        self.agent = str(client.model)
        self.usage: list = []

    def reset(self) -> None:
        self.usage = []

    def observe(self, command: str, text: str) -> None:  # the model sees feedback in the next prompt
        pass

    def messages(self, x: StepInput) -> list[dict]:
        user = (
            f"Task: {x.goal.text}\n\nGuidance from earlier tasks:\n{x.guidance or '(none)'}\n\n"
            f"Memory:\n{x.memory or '(empty)'}\n\nObservation:\n{x.observation}\n\n"
            f"Admissible actions:\n" + "\n".join(x.admissible)
        )
        return [{"role": "system", "content": REACT_SYSTEM}, {"role": "user", "content": user}]

    def act(self, x: StepInput) -> str:
        resp = self.client.chat(self.messages(x))
        self.usage.append(resp.usage)
        text = resp.content or ""
        m = _ACTION.search(text)
        if m:
            return m.group(1).strip()
        lines = text.strip().splitlines()
        return lines[-1].strip() if lines else "look"


CHOOSE_INTRO = (
    "You are an agent in a household text environment. Reach the task's goal in as few actions as "
    "possible. The memory lists what you saw where. Go to places you have not searched yet to find what "
    "the task needs."
)
RECENT = 5  # the choose executor's own last actions, repeated in its prompt (perception of what it just did)
# Admissible commands the choose executor does not offer: none moves a task on (`look` in these games says "you see
# nothing"), and the 1.5B model picks `look` whenever it is listed.
NOT_OFFERED = frozenset({"help", "inventory", "look"})


class ChooseExecutor:
    """A model executor for a small model (`alfworld.model_executor=choose`): each step the model names one of the
    offered actions by number through `client.choose` (the embedded model decodes under a grammar of the option
    numbers; a chat endpoint is asked and re-asked), so every action is admissible and a step generates a token or
    two. ReAct's reasoning spends a small model's output cap (48 tokens) before it reaches the action.

    What it offers: the admissible actions but `NOT_OFFERED`, those already taken since it last arrived somewhere
    and putting the held object back where it was taken from (harness rules, like the searcher's evidence rule: at
    temperature 0 an action that changed nothing leaves the prompt unchanged, so the model would repeat it to the
    step cap, and measured, it took and put back the same book until the cap).

    The prompt puts what a game does not change first (instructions, task, guidance), then the memory block, then
    what changes every step (where the agent is, what it holds, its last actions, the observation); `choose` adds
    the options last, so an in-process model re-evaluates only the tail (llama.cpp keeps the KV prefix of the
    previous call). Like the programmatic executor's scratch, it perceives its location, what it holds and its own
    last actions from the feedback; everything else it knows of the room comes from the memory block.
    `usage` holds, per step, the prompt tokens an in-process backend was sent and how many came from the KV prefix
    (zero on a call-cache hit: nothing was paid); a remote backend's choose() reports none.
    """

    def __init__(self, client):
        self.client = client
        self.agent = str(client.model)
        self.reset()

    def reset(self) -> None:
        self.usage: list = []
        self.location: str | None = None
        self.holding: str | None = None
        self.recent: list[str] = []
        self.here: set[str] = set()  # actions taken since the last arrival
        self.taken_from: str | None = None  # where the held object was picked up

    def observe(self, command: str, text: str) -> None:
        if m := _ARRIVE.search(text):
            self.location = m.group(1)
            self.here = set()
        else:
            self.here.add(command)
        if m := _PICK.search(text):
            self.holding, self.taken_from = m.group(1), m.group(2)
        if _MOVE.search(text):
            self.holding = self.taken_from = None
        self.recent = (self.recent + [command])[-RECENT:]

    def offered(self, admissible) -> list[str]:
        """The options: the admissible actions but `NOT_OFFERED`, those taken since the last arrival and putting the
        held object back where it was picked up (all the admissible ones when that leaves nothing)."""
        undo = f"move {self.holding} to {self.taken_from}" if self.holding else None
        return (
            [a for a in admissible if a not in NOT_OFFERED and a not in self.here and a != undo]
            or list(admissible)
            or ["look"]
        )

    def prompt(self, x: StepInput) -> str:
        recent = "; ".join(self.recent) or "(none yet)"
        return (
            f"{CHOOSE_INTRO}\n\nTask: {x.goal.text}\n\nGuidance from earlier tasks:\n{x.guidance or '(none)'}\n\n"
            f"Memory:\n{x.memory or '(empty)'}\n\n"
            f"You are at {self.location or 'the start'} and hold {self.holding or 'nothing'}. "
            f"Your last actions: {recent}.\nObservation:\n{x.observation.strip()}\n\nWhich action next?"
        )

    def act(self, x: StepInput) -> str:
        from tailmem.llm.records import Usage

        options = self.offered(x.admissible)
        before = _Counts.of(self.client)
        index = self.client.choose(self.prompt(x), options)
        after = _Counts.of(self.client)
        sent = after.sent - before.sent
        self.usage.append(Usage(sent, sent - (after.evaluated - before.evaluated), 1 if sent else 0))
        return options[index]


@dataclass(frozen=True)
class _Counts:
    """An in-process backend's token counters at one moment (`InstructBackend.sent_tokens` / `.evaluated`)."""

    sent: int = 0
    evaluated: int = 0

    @classmethod
    def of(cls, client) -> "_Counts":
        impl = getattr(client, "_impl", None)
        return cls(int(getattr(impl, "sent_tokens", 0)), int(getattr(impl, "evaluated", 0)))


def make_executor(client, mode: str = "react"):
    """The programmatic executor offline (`backend: programmatic`), else the model executor `mode`
    (`alfworld.model_executor`): ReAct (reasoning, then an action in tags) or choose (an offered action by number)."""
    if not plays_model(client):
        return ProgrammaticExecutor()
    if mode not in EXECUTORS:
        from tailmem.errors import ConfigError

        raise ConfigError(f"alfworld.model_executor: {mode!r}; expected one of {EXECUTORS}")
    return ReactExecutor(client) if mode == "react" else ChooseExecutor(client)


__all__ = ["ChooseExecutor", "ProgrammaticExecutor", "ReactExecutor", "StepInput", "make_executor", "seen_objects"]
