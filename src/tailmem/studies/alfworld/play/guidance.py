"""What the programmatic executor can use from retrieved text (a skill, a note, an episode log, synthesised
guidance): where objects of a kind were found, and which receptacle a verb needs.

It reads the same text a model executor would get; anything it cannot parse simply does not help it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tailmem.studies.alfworld.play.goal import Goal

_FOUND = re.compile(r"\b(\w+) (?:\d+ )?(?:was |were )?found (?:at|in|on):? ([a-z, ]+)")
_VERB_WITH = re.compile(r"\b(clean|heat|cool) (?:the |a |some )?\w+(?: \d+)? (?:with|using) (?:the |a )?([a-z]+)")
_USE = re.compile(r"\buse (?:the |a )?([a-z]+)(?: \d+)?")


@dataclass(frozen=True)
class Priors:
    """Receptacle kinds to search first for the goal object (best first) and the receptacle kind for its verb."""

    search: tuple[str, ...] = ()
    appliance: str = ""

    @property
    def empty(self) -> bool:
        return not self.search and not self.appliance


def priors(text: str, goal: Goal) -> Priors:
    if not text:
        return Priors()
    low = text.lower()
    where: Counter = Counter()
    take = re.compile(rf"\btake {re.escape(goal.obj)} \d+ from ([a-z]+) \d+")
    for m in take.finditer(low):
        where[m.group(1)] += 1
    for m in _FOUND.finditer(low):
        if m.group(1) == goal.obj:
            for part in re.split(r",\s*|\s+and\s+", m.group(2)):
                part = part.strip().split(" ")[0]
                if part:
                    where[part] += 1
    appliance = Counter()
    if goal.verb:
        for m in _VERB_WITH.finditer(low):
            if m.group(1) == goal.verb:
                appliance[m.group(2)] += 1
    ranked = tuple(k for k, _ in sorted(where.items(), key=lambda kv: (-kv[1], kv[0])))
    return Priors(search=ranked, appliance=appliance.most_common(1)[0][0] if appliance else "")
