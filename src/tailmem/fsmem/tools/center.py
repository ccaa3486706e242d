"""Center and Center+BM25: read-only search harnesses over a fixed store."""

from __future__ import annotations

from tailmem.fsmem.harness_names import CENTER
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.base import Harness
from tailmem.fsmem.tools.reading import reading_tools


def center(store: Store) -> Harness:
    h = Harness(CENTER)
    for t in reading_tools(store):
        h.add(t)
    return h


def center_bm25(store: Store) -> Harness:
    from tailmem.fsmem.tools.ranked import FileIndex, search_tool

    h = center(store)
    h.name = "center_bm25"
    h.add(search_tool(FileIndex(store)))
    return h
