"""Chunk retrieval: the search agent's only tool ranks conversation chunks with BM25 and returns the top 3."""

from __future__ import annotations

from tailmem.fsmem.chunks import Chunk
from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.terms import terms
from tailmem.fsmem.tools.base import Harness, Tool, params

MAX_QUERY_CHARS = 2000


class ChunkIndex:
    def __init__(self, chunks: list[Chunk]):
        import bm25s  # here, not at module level: the Snakefile imports this module's registry (0.5 s with numba)

        self.chunks = chunks
        self.bm25 = bm25s.BM25()
        if chunks:
            self.bm25.index([terms(c.render()) or ["_empty_"] for c in chunks], show_progress=False)

    def top(self, query: str, k: int = 3) -> list[Chunk]:
        if not query.strip() or len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"query: expected 1 to {MAX_QUERY_CHARS} characters")
        q = terms(query)
        if not q or not self.chunks:
            return []
        docs, scores = self.bm25.retrieve([q], k=min(k, len(self.chunks)), show_progress=False)
        return [self.chunks[int(d)] for d, s in zip(docs[0], scores[0]) if s > 0]


def chunk_retrieval(chunks: list[Chunk], k: int = 3) -> Harness:
    index = ChunkIndex(chunks)

    def retrieve(query: str) -> str:
        found = index.top(query, k)
        if not found:
            return f"no chunk matches {query!r}"
        return "\n\n".join(f"chunks/{c.id}.md\n{c.render()}" for c in found)

    h = Harness("chunks")
    h.add(
        Tool(
            "retrieve",
            f"BM25 search over conversation chunks; returns the top {k} chunks with turn locators.",
            params({"query": ("string", "keywords")}),
            retrieve,
        )
    )
    return h
