"""Memory items and the store that holds them, with the access statistics controllers rank by."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class MemoryItem:
    """One memory item (a graph-world state, a LongMemEval session, an ALFWorld location).

    `verbose` and `compact` are the item's lines in each encoding: line 0 is the header that names the item,
    each later line is one fact (a transition, a turn), the unit a controller keeps or cuts.
    `summary` is the one line the item shrinks to in a summarised tail: it names the item, so the tail is
    never silently dropped.
    """

    id: int
    verbose: tuple[str, ...]
    compact: tuple[str, ...]
    summary: str

    def lines(self, encoding: str) -> tuple[str, ...]:
        if encoding == "verbose":
            return self.verbose
        if encoding == "compact":
            return self.compact
        raise ValueError(f"memory.encoding must be 'verbose' or 'compact', got {encoding!r}")


@dataclass(frozen=True)
class StepRecord:
    """One line of the interaction history (what Full History and Sliding Window replay), and its items."""

    step: int
    verbose: str
    compact: str
    item_ids: tuple[int, ...]


@dataclass
class MemoryStore:
    """Items by id plus how often and how recently each was placed in context (the access statistics)."""

    items: dict[int, MemoryItem] = field(default_factory=dict)
    history: list[StepRecord] = field(default_factory=list)
    access_count: dict[int, int] = field(default_factory=dict)
    last_access: dict[int, int] = field(default_factory=dict)

    def put(self, item: MemoryItem) -> None:
        self.items[item.id] = item

    def record(self, rec: StepRecord) -> None:
        self.history.append(rec)

    def touch(self, ids, step: int) -> None:
        """Count one access for each id (placed into the agent's context at `step`)."""
        for i in ids:
            self.access_count[i] = self.access_count.get(i, 0) + 1
            self.last_access[i] = step

    def __contains__(self, item_id: int) -> bool:
        return item_id in self.items

    def __len__(self) -> int:
        return len(self.items)
