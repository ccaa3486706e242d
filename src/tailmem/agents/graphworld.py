"""The programmatic graph-world policy: goal-directed, using only what a model's prompt would hold (state text,
action names, goal text, retrieved memory texts), so memory is what it measures.

It stands in for the `policy` role when no model is configured (the offline default) and is deterministic: the
same inputs give the same output. It takes plain strings and lists, never the World. (The `predictor` role's
programmatic stand-in reads controller memory blocks: `tailmem.control.predict`.)

Memory texts are read in the form `format_transition` writes ("From: <state> | Action: <action> | To: <next>");
a free-form text that quotes a state, an action and then another state is read too.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from tailmem.roles import programmatic_agent

POLICY_AGENT = programmatic_agent("semantic")

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the of to in into on at by for from and or is are was be it its this that with toward "
    "towards deeper out one path paths lead leads directions take go you your".split()
)
_TRANSITION = re.compile(r"From:\s*(?P<state>.*?)\s*\|\s*Action:\s*(?P<action>.*?)\s*\|\s*To:\s*(?P<next>.*)", re.S)


def format_transition(state: str, action: str, next_state: str) -> str:
    """A memory text for one observed transition, in the form both agents read."""
    return f"From: {state} | Action: {action} | To: {next_state}"


def words(text: str) -> frozenset[str]:
    """Content words: lower-case, stop words dropped."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _tiebreak(*parts: str) -> int:
    """A stable pseudo-random number from the inputs, so ties do not always favour the first action."""
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Transition:
    state: str
    action: str
    next_state: str


def parse_transitions(memories: list[str], states: list[str] | None = None) -> list[Transition]:
    """Transitions the memory texts state: the `format_transition` form, or (given candidate states) a text that
    names a state, then an action-like phrase, then another state."""
    found = []
    for text in memories:
        m = _TRANSITION.search(text)
        if m:
            found.append(Transition(m["state"].strip(), m["action"].strip(), m["next"].strip()))
            continue
        if states:
            low = _norm(text)
            spots = sorted((low.find(_norm(s)), s) for s in states if _norm(s) and _norm(s) in low)
            if len(spots) >= 2:
                (i, first), (j, second) = spots[0], spots[-1]
                middle = low[i + len(_norm(first)) : j].strip(" .,;:->")
                found.append(Transition(first, middle, second))
    return found


def _same(a: str, b: str) -> bool:
    a, b = _norm(a), _norm(b)
    return a == b or (len(a) > 8 and (a in b or b in a))


def choose_action(state: str, actions: list[str], goal: str, memories: list[str]) -> int:
    """Index of the action that looks closest to the goal (the `programmatic-semantic` policy).

    Score per action: a remembered transition from this state by this action that reaches the goal wins outright;
    otherwise the goal's content words shared with the remembered destination, plus those shared with the action
    name itself (names say which district they lead toward). Ties break by a stable hash of the inputs.
    """
    if not actions:
        raise ValueError("choose_action needs at least one action")
    goal_words = words(goal)
    known = [t for t in parse_transitions(memories) if _same(t.state, state)]
    best, best_key = 0, None
    for i, action in enumerate(actions):
        score = 2.0 * len(goal_words & words(action))
        for t in known:
            if _norm(t.action) == _norm(action):
                score += 1000.0 if _same(t.next_state, goal) else 3.0 * len(goal_words & words(t.next_state))
        key = (score, _tiebreak(state, goal, action))
        if best_key is None or key > best_key:
            best, best_key = i, key
    return best
