"""Search harnesses for questions answered side by side: each question runs on a harness no other question uses.

A harness accumulates state as an agent uses it: its trace of calls (the rows' `search_trace`) and the counters
an episode's accounting reads as differences (`Meter`). Two questions on one harness at once would mix both, so
a question takes a harness from the pool and gives it back when done; the pool opens another only when every
open one is taken, so it holds at most as many harnesses as questions run at once (one, when they run in turn).
The harnesses are read-only views of one store: which one a question gets does not change what its tools
return. The tool outputs the pool's harnesses recorded are merged for `tool_outputs.write`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tailmem.fsmem.tools.base import Harness

Opener = Callable[[], tuple[Harness, str, int]]  # () -> (harness, the search prompt's form, the round cap)


class HarnessPool:
    """Harnesses opened by `open_search` (variants.search_harness) on demand; `form` and `cap` are the first's."""

    def __init__(self, open_search: Opener, record_outputs: bool = True):
        self._open, self._record = open_search, record_outputs
        self._lock = threading.Lock()
        self._free: list[Harness] = []
        self.opened: list[Harness] = []
        first, self.form, self.cap = self._new()
        self._free.append(first)

    @property
    def first(self) -> Harness:
        return self.opened[0]

    def _new(self) -> tuple[Harness, str, int]:
        harness, form, cap = self._open()
        if self._record:
            harness.outputs = {}  # recorded beside the answers (fsmem.tool_outputs): evidence and site read
        self.opened.append(harness)
        return harness, form, cap

    @contextmanager
    def taken(self) -> Iterator[Harness]:
        """A harness for one question alone, back in the pool afterwards."""
        with self._lock:
            harness = self._free.pop() if self._free else None
        if harness is None:
            with self._lock:
                harness = self._new()[0]
        try:
            yield harness
        finally:
            with self._lock:
                self._free.append(harness)

    def outputs(self) -> dict:
        """The distinct tool calls' outputs over every harness (the same call on the same store, the same output)."""
        merged: dict = {}
        for harness in self.opened:
            for key, value in (harness.outputs or {}).items():
                merged.setdefault(key, value)
        return merged

    def close(self) -> None:
        for harness in self.opened:
            harness.close()
