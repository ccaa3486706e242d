"""The goal of a game, read from its task line, and the object lists of ALFWorld's feedback text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tailmem.errors import DataError

# alfworld's templated goals (alfworld.gen.goal_library), one pattern per family and wording.
_PATTERNS = (
    ("pick_clean_then_place_in_recep", r"put a clean (?P<obj>\w+) in (?P<target>\w+)"),
    ("pick_clean_then_place_in_recep", r"clean some (?P<obj>\w+) and put it in (?P<target>\w+)"),
    ("pick_heat_then_place_in_recep", r"put a hot (?P<obj>\w+) in (?P<target>\w+)"),
    ("pick_heat_then_place_in_recep", r"heat some (?P<obj>\w+) and put it in (?P<target>\w+)"),
    ("pick_cool_then_place_in_recep", r"put a cool (?P<obj>\w+) in (?P<target>\w+)"),
    ("pick_cool_then_place_in_recep", r"cool some (?P<obj>\w+) and put it in (?P<target>\w+)"),
    ("pick_two_obj_and_place", r"put two (?P<obj>\w+) in (?P<target>\w+)"),
    ("pick_two_obj_and_place", r"find two (?P<obj>\w+) and put them in (?P<target>\w+)"),
    ("look_at_obj_in_light", r"look at (?P<obj>\w+) under the (?P<tool>\w+)"),
    ("look_at_obj_in_light", r"examine the (?P<obj>\w+) with the (?P<tool>\w+)"),
    ("pick_and_place_simple", r"put (?:a|some) (?P<obj>\w+) (?:in|on) (?P<target>\w+)"),
)
VERB = {
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
}
_TASK = re.compile(r"Your task is to: (.+?)\.?\s*$", re.M)
_NAME = re.compile(r"^([a-z]+) (\d+)$")


@dataclass(frozen=True)
class Goal:
    """`obj` to find (`count` of them), `verb` to apply (clean/heat/cool) or `tool` to use, `target` type."""

    text: str
    family: str
    obj: str
    target: str = ""
    tool: str = ""
    count: int = 1

    @property
    def verb(self) -> str:
        return VERB.get(self.family, "")


def parse_goal(text: str) -> Goal:
    """The goal in an observation or a bare task line; DataError if no template matches."""
    m = _TASK.search(text)
    line = (m.group(1) if m else text).strip().rstrip(".").lower()
    for family, pattern in _PATTERNS:
        g = re.fullmatch(pattern, line)
        if g:
            d = g.groupdict()
            return Goal(
                line,
                family,
                d["obj"],
                d.get("target") or "",
                d.get("tool") or "",
                2 if family == "pick_two_obj_and_place" else 1,
            )
    raise DataError(f"goal {line!r}: matches no ALFWorld template")


def kind(name: str) -> str:
    """'drawer 3' -> 'drawer'."""
    m = _NAME.match(name)
    return m.group(1) if m else name


def seen_objects(text: str) -> list[str]:
    """Entity names listed after 'you see' ('a apple 1, a bowl 2, and a cup 1' -> [...]); [] for 'nothing'."""
    m = re.search(r"you see (.+?)\.(?:\s|$)", text)
    if not m or m.group(1).strip() == "nothing":
        return []
    parts = re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group(1))
    out = []
    for p in parts:
        p = re.sub(r"^(?:a|an|some)\s+", "", p.strip())
        if _NAME.match(p):
            out.append(p)
    return out
