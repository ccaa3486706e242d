"""One memory read of an external run, and a whole log of them: what every importer produces and the audit reads.

An event says which item was read, in which run, episode and step; `tokens` (what the read cost) and `source`
(which tool or retriever made it) are optional. `universe` holds the items known to exist though maybe never read
(a LongMemEval haystack ranks every session); without it the audit sees only the items that were read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from tailmem.errors import TailmemError


class LogError(TailmemError):
    """An access log that cannot be read: the message names the file and the line (or sample) at fault."""

    def __init__(self, path: str | Path, where: str | int | None, problem: str):
        self.path, self.where, self.problem = str(path), where, problem
        at = "" if where is None else (f":{where}" if isinstance(where, int) else f" ({where})")
        super().__init__(f"{path}{at}: {problem}")


@dataclass(frozen=True)
class AccessEvent:
    """One read of one memory item."""

    run: str
    episode: str
    step: int
    item: str
    tokens: int | None = None
    source: str | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class AccessLog:
    """Every read of one log, in file order, with where it came from."""

    path: str
    format: str
    events: tuple[AccessEvent, ...]
    universe: tuple[str, ...] = ()  # items known to exist (read or not); empty = only the read items are known
    notes: tuple[str, ...] = field(default=())  # what the importer skipped, and why

    def counts(self) -> tuple[np.ndarray, list[str]]:
        """Reads per item, items in order of first read, then the never-read items of `universe`."""
        per_item = Counter(e.item for e in self.events)
        items = list(dict.fromkeys([e.item for e in self.events] + list(self.universe)))
        return np.array([per_item.get(i, 0) for i in items], dtype=np.int64), items

    def describe(self) -> dict:
        """Sizes of the log: events, runs, episodes, items read and known, tokens (None when none are given)."""
        tokens = [e.tokens for e in self.events if e.tokens is not None]
        return {
            "events": len(self.events),
            "runs": len({e.run for e in self.events}),
            "episodes": len({(e.run, e.episode) for e in self.events}),
            "items_read": len({e.item for e in self.events}),
            "items_known": len(set(self.universe) | {e.item for e in self.events}),
            "tokens": int(sum(tokens)) if tokens else None,
            "sources": dict(Counter(e.source for e in self.events if e.source is not None)),
        }
