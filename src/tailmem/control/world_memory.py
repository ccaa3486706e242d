"""The agent's memory of a graph world: one item per visited state, holding the transitions learned there.

Item text comes in two encodings (paper 1 Table 5): verbose (full sentences) and compact (short codes).
A fact line names the action and the state it leads to; the summary line names the state, its region and its
known exits as compressed facts (code and region, without the path: `S254 round gallery/jade (2/4 exits known:
S12/orchard, S40/jade)`), so a state kept only in the summarised tail still tells a predictor where a "toward the
X district" action from it may go. A summary that names only the state and region keeps nothing a prediction can
use, and then a summarised tail is no better than a dropped one.
"""

from __future__ import annotations

import re

from tailmem.graphworld.world import World
from tailmem.memory import MemoryItem, MemoryStore, StepRecord

_PLACE = re.compile(r"^The (?P<place>.+?) of the (?P<region>.+?) district\.")
_ACTION = re.compile(r"^take the (?P<way>.+?) (?:deeper into|toward) the (?P<region>.+?) district$")


def place_and_region(state_text: str) -> tuple[str, str]:
    m = _PLACE.match(state_text)
    return (m["place"], m["region"]) if m else (state_text.split(".")[0], "")


def short_action(name: str) -> str:
    """'take the copper stair toward the orchard district' -> 'copper stair>orchard'."""
    m = _ACTION.match(name)
    return f"{m['way']}>{m['region']}" if m else name


def state_code(state: int) -> str:
    return f"S{state}"


class WorldMemory:
    """Learned transitions per visited state, and the MemoryStore of items a controller reads."""

    def __init__(self, world: World):
        self.world = world
        self.store = MemoryStore()
        self.facts: dict[int, dict[int, int]] = {}  # state -> {action index: times taken}
        self.known_in: dict[int, set[int]] = {}  # state -> states known to lead into it

    def visit(self, state: int) -> None:
        if state not in self.facts:
            self.facts[state] = {}
            self.known_in.setdefault(state, set())
            self.store.put(self._item(state))

    def learn(self, step: int, state: int, action: int, next_state: int) -> None:
        """Write memory after observing (state, action) -> next_state (step (d) of the agent loop)."""
        self.visit(state)
        self.visit(next_state)
        self.facts[state][action] = self.facts[state].get(action, 0) + 1
        self.known_in[next_state].add(state)
        self.store.put(self._item(state))
        name = self.world.actions(state)[action]
        self.store.record(
            StepRecord(
                step=step,
                verbose=f"Step {step}: at state {state}, '{name}' led to state {next_state}.",
                compact=f"{state_code(state)} {short_action(name)}>{state_code(next_state)}",
                item_ids=(state, next_state),
            )
        )

    def related(self, state: int) -> tuple[int, ...]:
        """Stored states known to be adjacent to `state` (out of it or into it), from memory, not the world."""
        out = {self.world.step(state, a) for a in self.facts.get(state, {})}
        return tuple(sorted(out | self.known_in.get(state, set())))

    def fact_lines(self, state: int, action: int) -> tuple[str, str]:
        """The verbose and compact lines of one transition, as they appear in an item."""
        name = self.world.actions(state)[action]
        nxt = self.world.step(state, action)
        place, region = place_and_region(self.world.state_texts[nxt])
        return (
            f"  '{name}' leads to state {nxt} (the {place} of the {region} district).",
            f"  {short_action(name)}>{state_code(nxt)}",
        )

    def _item(self, state: int) -> MemoryItem:
        place, region = place_and_region(self.world.state_texts[state])
        learned = sorted(self.facts[state].items(), key=lambda kv: (-kv[1], kv[0]))  # most used first
        lines = [self.fact_lines(state, a) for a, _ in learned]
        degree = self.world.degree(state)
        exits = ", ".join(self.exit_mention(self.world.step(state, a)) for a, _ in learned)
        return MemoryItem(
            id=state,
            verbose=(f"State {state}: {self.world.state_texts[state]} Known exits:",) + tuple(v for v, _ in lines),
            compact=(f"{state_code(state)} {place}/{region}",) + tuple(c for _, c in lines),
            summary=f"{state_code(state)} {place}/{region} ({len(learned)}/{degree} exits known"
            + (f": {exits})" if exits else ")"),
        )

    def exit_mention(self, state: int) -> str:
        """How a summary names a known exit: its code and region (S12/orchard), without the path that leads there."""
        return f"{state_code(state)}/{place_and_region(self.world.state_texts[state])[1]}"
