"""Next-state prediction from a memory block (step (c) of the agent loop), by a model or a programmatic rule.

The programmatic predictor is right for certain only when the transition is in the prompt (evidence); else it
guesses from what the prompt mentions: a state of the region the action points to. That guess is where a
summarised tail helps and a dropped tail does not, which is paper 1's argument for CTMC.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from tailmem.control.world_memory import short_action
from tailmem.llm.backends.base import client_kind
from tailmem.llm.parallel import workers_for
from tailmem.roles import programmatic_agent

INSTRUCTION = (
    "You are exploring a world of places connected by paths. Below is your memory of places and the paths you "
    "have taken. Predict where the chosen path leads. Answer with the state code only, e.g. S12; answer "
    "UNKNOWN if memory gives no clue."
)

_REGION_OF_ACTION = re.compile(r"(?:deeper into|toward) the (.+?) district$")
_MENTIONS = (
    re.compile(r"^S(?P<s>\d+) [^/\n]+/(?P<r>[^\n(]+?)(?: \(|$)", re.M),  # compact header or summary: S12 place/region
    re.compile(r"^State (?P<s>\d+): The .+? of the (?P<r>.+?) district\.", re.M),  # verbose header
    re.compile(r"leads to state (?P<s>\d+) \(the .+? of the (?P<r>.+?) district\)"),  # verbose fact
    re.compile(r">(?P<r>[^>\n]+)>S(?P<s>\d+)$", re.M),  # compact fact or record: way>region>S12
    re.compile(r"(?:: |, )S(?P<s>\d+)/(?P<r>[^,)\n]+)"),  # a summary's known exit: S12/orchard
)


@dataclass(frozen=True)
class Prediction:
    state: int | None  # None = UNKNOWN
    from_evidence: bool


def question(state: int, state_text: str, action: str) -> str:
    return f"You are at state {state}: {state_text}\nChosen path: '{action}'.\nWhich state does it lead to?"


def full_prompt(memory_block: str, state: int, state_text: str, action: str) -> str:
    """The whole API-calling-step prompt whose tokens Tables 4-6 count."""
    return f"{INSTRUCTION}\n\nMemory:\n{memory_block}\n\n{question(state, state_text, action)}"


def find_evidence(memory_block: str, state: int, action: str) -> int | None:
    """The next state if the prompt states this transition (item fact or history record), else None."""
    short = re.escape(short_action(action))
    patterns = (
        # compact item block of `state`: header line then indented facts
        rf"^S{state} [^\n]*\n(?:  [^\n]*\n)*?  {short}>S(\d+)$",
        rf"^S{state} {short}>S(\d+)$",  # compact history record
        rf"^State {state}: [^\n]*\n(?:  [^\n]*\n)*?  '{re.escape(action)}' leads to state (\d+)",
        rf"at state {state}, '{re.escape(action)}' led to state (\d+)\.",  # verbose history record
    )
    for p in patterns:
        m = re.search(p, memory_block, re.M)
        if m:
            return int(m.group(1))
    return None


def mentioned_regions(memory_block: str) -> dict[int, str]:
    """State -> region for every state the prompt names with its region, in order of first mention."""
    found: dict[int, tuple[int, str]] = {}
    for pattern in _MENTIONS:
        for m in pattern.finditer(memory_block):
            s = int(m["s"])
            if s not in found or m.start() < found[s][0]:
                found[s] = (m.start(), m["r"].strip())
    return {s: region for s, (_, region) in sorted(found.items(), key=lambda kv: kv[1][0])}


def known_exits(memory_block: str, state: int) -> set[int]:
    """States the block says `state` leads to by some path: its item's facts and its summary's exits."""
    out: set[int] = set()
    for line in _block_of(memory_block, state):
        out.update(int(x) for x in _EXIT_CODES.findall(line))
    return out


_EXIT_CODES = re.compile(r"(?:>S|leads to state |: S|, S)(\d+)")


def _block_of(memory_block: str, state: int) -> list[str]:
    """The lines of `state`'s item (header and indented facts) or its summary line."""
    lines = memory_block.split("\n")
    head = re.compile(rf"^(?:S{state} |State {state}: )")
    for i, line in enumerate(lines):
        compact_record = not line.startswith("State ") and ">" in line.split("/", 1)[0]  # S12 way>region>S40
        if head.match(line) and not compact_record:  # an item header or summary
            j = i + 1
            while j < len(lines) and lines[j].startswith("  "):
                j += 1
            return lines[i:j]
    return []


class ProgrammaticPredictor:
    """Evidence if present; else a state of the action's region, first one the block says the current state leads
    to (its facts or its summary's exits), then the first-mentioned one (never the current state)."""

    name = programmatic_agent("memory")

    def predict(self, memory_block: str, state: int, state_text: str, action: str) -> Prediction:
        hit = find_evidence(memory_block, state, action)
        if hit is not None:
            return Prediction(hit, True)
        m = _REGION_OF_ACTION.search(action)
        if m:
            in_region = [s for s, r in mentioned_regions(memory_block).items() if r == m.group(1) and s != state]
            exits = known_exits(memory_block, state)
            for s in sorted(in_region, key=lambda s: s not in exits):  # stable: exits first, then mention order
                return Prediction(s, False)
        return Prediction(None, False)


_CODE = re.compile(r"\bS(\d+)\b")
_STATE = re.compile(r"\bstate\s+(\d+)\b", re.I)  # the verbose encoding's form: "leads to state 12"
_NUMBER = re.compile(r"^\W*(\d+)\W*$")  # a reply that is a bare number
_UNKNOWN = re.compile(r"\bUNKNOWN\b", re.I)


def mentioned_codes(memory_block: str) -> set[int]:
    """Every state the block names, as a code (S12) or in words (state 12)."""
    return {int(m) for m in _CODE.findall(memory_block)} | {int(m) for m in _STATE.findall(memory_block)}


def parse_state(reply: str | None) -> int | None:
    """The state a reply names: its first code (S12), else its first "state 12", else the whole reply as a bare
    number (a model shown the verbose encoding, which writes "state 12", often answers "12"); else None."""
    for pattern in (_CODE, _STATE, _NUMBER):
        m = pattern.search(reply or "")
        if m:
            return int(m.group(1))
    return None


class ModelPredictor:
    """A configured model names the next state.

    A chat model (openai, the embedded instruct model) gets the whole prompt whose tokens Tables 4-6 count and
    answers in its own words under the role's short output cap (`max_output_tokens`, 8 for llm=embedded): the
    state the reply names (`parse_state`) is the prediction; UNKNOWN or no state is no prediction (an error). It
    may name any state, also one the block does not mention, so its error on the tail is the model's own, not a
    menu's. Why not `choose` over the mentioned codes for the instruct model: on the smoke trajectory (Graph
    Memory, 6 steps) the numbered option list cost 166 evaluated prompt tokens per step against 132, and the model
    mixed option numbers with state numbers (wrong or UNKNOWN on both steps whose block held the transition; the
    free reply had both right). Free replies over 48 steps (Graph Memory and CTMC, both encodings, 500 states):
    about 3 tokens each, 2 UNKNOWN, none without a state once "state 12" and a bare "12" (how the model answers
    under the verbose encoding) are read. A scoring-only model (local) picks among the mentioned states and UNKNOWN.
    """

    def __init__(self, client):
        self.client = client
        self.name = f"{client.backend}:{client.model}"
        self.calls = 0
        self.unknown = 0  # replies that answered UNKNOWN
        self.malformed = 0  # replies with neither a state code nor UNKNOWN
        self._lock = threading.Lock()  # the counters, when a replay predicts side by side

    def workers(self, units: int) -> int:
        """How many predictions at once (the role's concurrency; 1 for an in-process model)."""
        return workers_for(self.client, units)

    def _count(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    def predict(self, memory_block: str, state: int, state_text: str, action: str) -> Prediction:
        prompt = full_prompt(memory_block, state, state_text, action)
        self._count("calls")
        if not client_kind(self.client).chats:  # a scoring-only model ranks the options itself
            options = [f"S{s}" for s in mentioned_regions(memory_block) if s != state] + ["UNKNOWN"]
            choice = options[self.client.choose(prompt + "\nAnswer:", options)]
            if choice == "UNKNOWN":
                self._count("unknown")
            return Prediction(None if choice == "UNKNOWN" else int(choice[1:]), False)
        # the embedded model decodes under a grammar of the state codes the block names, or UNKNOWN: a reply is
        # always one of them, never a code the prompt gave no ground for nor prose around it. The current state is
        # no option (no path leads back to it; the worlds have no self-loops): the block names it first, and an
        # unconstrained first token drifted there on steps whose block held the answer
        options = [f"S{s}" for s in sorted(mentioned_codes(memory_block) - {state})] + ["UNKNOWN"]
        extra = {"answer_choices": options} if getattr(self.client, "constrains_answers", False) else {}
        reply = self.client.chat([{"role": "user", "content": prompt}], **extra).content or ""  # role's params
        state = parse_state(reply)
        if state is None:
            self._count("unknown" if _UNKNOWN.search(reply) else "malformed")
        return Prediction(state, False)
