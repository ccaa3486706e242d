"""Ranked whole-file search (Center+BM25): bm25s over each file's name, frontmatter and body."""

from __future__ import annotations

import bm25s

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.store import Store
from tailmem.fsmem.tokens import terms
from tailmem.fsmem.tools.base import Tool, params

MAX_QUERY_CHARS = 2000


class FileIndex:
    """A BM25 index of the store as it is when built; search stores are fixed, so no updates."""

    def __init__(self, store: Store):
        self.store = store
        self.paths = store.files()
        docs = []
        for p in self.paths:
            name_words = p.replace("/", " ").replace("_", " ").replace("-", " ").replace(".md", "")
            docs.append(terms(name_words + "\n" + store.read(p)) or ["_empty_"])
        self.bm25 = bm25s.BM25()
        if self.paths:
            self.bm25.index(docs, show_progress=False)

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        if not query.strip() or len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"query: expected 1 to {MAX_QUERY_CHARS} characters")
        q = terms(query)
        if not q or not self.paths:
            return []
        k = max(1, min(int(k), len(self.paths)))
        docs, scores = self.bm25.retrieve([q], k=k, show_progress=False)
        return [(self.paths[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]


def search_tool(index: FileIndex) -> Tool:
    def run(query: str, k: int = 5) -> str:
        hits = index.search(query, k)
        if not hits:
            return f"no file matches {query!r}"
        out = []
        for path, score in hits:
            desc = index.store.document(path).description
            out.append(f"{path}  (score {score:.2f}) - {desc}")
        return "\n".join(out)

    return Tool(
        "search",
        "Ranked BM25 search over whole files (names, frontmatter and bodies); returns the best files first.",
        params({"query": ("string", "keywords")}, {"k": ("integer", "number of files, default 5")}),
        run,
    )


