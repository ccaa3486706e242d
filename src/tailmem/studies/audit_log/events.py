"""One memory read of an external run, and a whole log of them: what every importer produces and the audit reads.

An event says which item was read, in which run, episode and step; `tokens` (what the read cost) and `source`
(which tool or retriever made it) are optional. `universe` holds the items known to exist though maybe never read
(a LongMemEval haystack ranks every session); without it the audit sees only the items that were read.

A log can be far larger than memory, so `AccessLog` keeps no events: one pass over the importer's stream checks
every line and tallies what the audit needs (reads per item, runs, episodes, tokens, sources), which grows with
the distinct items and episodes, not with the lines. The events are streamed again from the file when they are
written out (`events`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
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


@dataclass
class Tally:
    """What the audit needs of a log's events, summed in one pass: its size grows with distinct items and
    episodes only."""

    events: int = 0
    reads: Counter = field(default_factory=Counter)  # reads per item, in order of first read
    runs: set = field(default_factory=set)
    episodes: set = field(default_factory=set)
    tokens: int = 0
    with_tokens: int = 0
    sources: Counter = field(default_factory=Counter)

    def add(self, e: AccessEvent) -> None:
        self.events += 1
        self.reads[e.item] += 1
        self.runs.add(e.run)
        self.episodes.add((e.run, e.episode))
        if e.tokens is not None:
            self.tokens += e.tokens
            self.with_tokens += 1
        if e.source is not None:
            self.sources[e.source] += 1


@dataclass(frozen=True)
class AccessLog:
    """A log read and checked whole, as its tally; `stream` yields its events again, in file order."""

    path: str
    format: str
    stream: Callable[[], Iterable[AccessEvent]] = field(repr=False, compare=False)
    tally: Tally = field(default_factory=Tally)
    universe: tuple[str, ...] = ()  # items known to exist (read or not); empty = only the read items are known
    notes: tuple[str, ...] = field(default=())  # what the importer skipped, and why

    @classmethod
    def scan(cls, path: str | Path, fmt: str, stream: Callable[[], Iterable[AccessEvent]], **kw) -> AccessLog:
        """The log after one full pass of `stream`: any LogError is raised here, before anything is returned."""
        tally = Tally()
        for e in stream():
            tally.add(e)
        return cls(str(path), fmt, stream, tally, **kw)

    @property
    def events(self) -> Iterator[AccessEvent]:
        return iter(self.stream())

    def counts(self) -> tuple[np.ndarray, list[str]]:
        """Reads per item, items in order of first read, then the never-read items of `universe`."""
        per_item = self.tally.reads
        items = list(dict.fromkeys([*per_item, *self.universe]))
        return np.array([per_item.get(i, 0) for i in items], dtype=np.int64), items

    def describe(self) -> dict:
        """Sizes of the log: events, runs, episodes, items read and known, tokens (None when none are given)."""
        t = self.tally
        return {
            "events": t.events,
            "runs": len(t.runs),
            "episodes": len(t.episodes),
            "items_read": len(t.reads),
            "items_known": len(set(self.universe) | set(t.reads)),
            "tokens": int(t.tokens) if t.with_tokens else None,
            "sources": dict(t.sources),
        }
