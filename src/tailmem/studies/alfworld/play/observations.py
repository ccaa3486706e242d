"""The agent's memory of one game (paper 1 on ALFWorld): one item per visited location, its facts the objects
last seen there. Controllers (Graph Memory, CTMC) choose what of it enters the prompt; the executor then knows
only what the prompt shows, so a location cut from the prompt may be searched again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tailmem.memory import MemoryItem, MemoryStore, StepRecord
from tailmem.memory.query import Query
from tailmem.studies.alfworld.play.goal import Goal, kind

_LOC = re.compile(r"^(?:At )?([a-z]+ \d+)\b")
_OBJ = re.compile(r"([a-z]+ \d+)")


class LocationMemory:
    """Items by location; `ids` gives each location a stable integer id in the order first visited."""

    def __init__(self):
        self.store = MemoryStore()
        self.ids: dict[str, int] = {}
        self.objects: dict[str, list[str]] = {}
        self.visited_at: dict[str, int] = {}

    def observe(self, step: int, location: str, objects: list[str], action: str = "") -> None:
        """Write memory after seeing `objects` at `location` (all it holds, as far as the agent can see)."""
        lid = self.ids.setdefault(location, len(self.ids))
        self.objects[location] = list(objects)
        self.visited_at[location] = step
        self.store.put(self._item(location))
        self.store.record(
            StepRecord(
                step,
                f"Step {step}: {action} -> at {location}, saw {', '.join(objects) or 'nothing'}.",
                f"{step}:{location}",
                (lid,),
            )
        )

    def moved(self, obj: str, src: str | None, dst: str | None) -> None:
        """An object left `src` (taken) or arrived at `dst` (placed)."""
        for loc, add in ((src, False), (dst, True)):
            if loc is None or loc not in self.objects:
                continue
            objs = [o for o in self.objects[loc] if o != obj] + ([obj] if add else [])
            self.objects[loc] = objs
            self.store.put(self._item(loc))

    def _item(self, loc: str) -> MemoryItem:
        objs = self.objects[loc]
        return MemoryItem(
            id=self.ids[loc],
            verbose=(f"At {loc} (visited at step {self.visited_at[loc]}) you saw:",) + tuple(f"  - {o}" for o in objs)
            if objs
            else (f"At {loc} (visited at step {self.visited_at[loc]}) you saw nothing.",),
            compact=(f"{loc}:",) + tuple(f"  {o}" for o in objs) if objs else (f"{loc}: nothing",),
            summary=f"{loc}: visited, {len(objs)} object(s)",
        )

    def query(self, step: int, current: str | None, goal: Goal) -> Query:
        """Related items: locations holding what the goal needs first (object, tool, target), then the rest,
        most recently visited first."""
        wanted = {goal.obj, goal.tool, goal.target} - {""}

        def score(loc: str) -> tuple:
            hits = sum(1 for o in self.objects[loc] if kind(o) in wanted) + (kind(loc) == goal.target)
            return (-hits, -self.visited_at[loc], loc)

        related = tuple(self.ids[loc] for loc in sorted(self.objects, key=score) if loc != current)
        return Query(step=step, current=self.ids.get(current) if current else None, related=related, text=goal.text)


@dataclass
class Knowledge:
    """What a memory block tells the agent: locations it shows as visited and the objects listed under them."""

    visited: set = field(default_factory=set)
    objects: dict = field(default_factory=dict)

    @classmethod
    def read(cls, text: str) -> "Knowledge":
        k = cls()
        loc = None
        for line in text.splitlines():
            if line.startswith("  "):
                if loc is not None:
                    k.objects.setdefault(loc, []).extend(_OBJ.findall(line))
                continue
            m = _LOC.match(line)
            loc = m.group(1) if m else None
            if loc:
                k.visited.add(loc)
        return k

    def where(self, obj_kind: str) -> list[str]:
        return [loc for loc, objs in self.objects.items() if any(kind(o) == obj_kind for o in objs)]
