"""Ranked whole-file search (Center+BM25): bm25s over each file's name, frontmatter and body."""

from __future__ import annotations

import bm25s

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.store import Store
from tailmem.fsmem.terms import terms
from tailmem.fsmem.tools.base import Tool, params

MAX_QUERY_CHARS = 2000


class FileIndex:
    """A BM25 index of the store. Search stores are fixed, so by default it is built once; `live` (a builder's
    harness, whose store changes between calls) re-indexes whenever the files' contents changed."""

    def __init__(self, store: Store, live: bool = False):
        self.store, self.live = store, live
        self._index(self._contents())

    def _contents(self) -> dict[str, str]:
        return {p: self.store.read(p) for p in self.store.files()}

    def _index(self, contents: dict[str, str]) -> None:
        self.contents = contents if self.live else None
        self.paths = list(contents)
        docs = []
        for p, text in contents.items():
            name_words = p.replace("/", " ").replace("_", " ").replace("-", " ").replace(".md", "")
            docs.append(terms(name_words + "\n" + text) or ["_empty_"])
        self.bm25 = bm25s.BM25()
        if self.paths:
            self.bm25.index(docs, show_progress=False)

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        if not query.strip() or len(query) > MAX_QUERY_CHARS:
            raise ToolError(f"query: expected 1 to {MAX_QUERY_CHARS} characters")
        if self.live:
            now = self._contents()
            if now != self.contents:
                self._index(now)
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
        compact=("query",),
    )
