"""Store accesses of the search agent: which files and sections it read, counted over all queries, so the
tail audit of paper 1 (concentration, tail fits, CCDFs) can be applied to a filesystem store.

A read is a tool call that returned stored content: `view` of a file (with a line range: the sections the
range overlaps; without: every section), `read_section`, `bash` commands naming a file (`sed -n 'Np' f`: the
section holding line N; `cat`/`head`/`tail`: every section), and `retrieve` (the chunk files returned; the
query alone decides them, so they are re-ranked here from the trace's query). `grep`, `toc`, `search` and tree
views show matches or names, not content, and are not counted. Sections are leaf sections: the nearest
heading at or above a line (lines before the first heading form the file's preamble). Every file and section
of the store is an item, read or not (count 0).
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass

from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.reading import headings

PREAMBLE = "(preamble)"
SED_LINE = re.compile(r"^(\d+)(?:,(\d+))?p$")


@dataclass(frozen=True)
class Accesses:
    """Read counts over the store's files and leaf sections (zeros included), and reads outside the store."""

    files: dict  # path -> reads
    sections: dict  # "path#line title" -> reads
    unresolved: int  # reads naming a path the store does not hold


class SectionMap:
    """Leaf sections of every file: line -> section id."""

    def __init__(self, store: Store):
        self.store = store
        self.starts: dict[str, list[tuple[int, str]]] = {}
        for f in store.files():
            hs = [(ln, f"{f}#{ln} {title}") for ln, _, title in headings(store.read(f))]
            if not hs or hs[0][0] > 1:
                hs.insert(0, (1, f"{f}#0 {PREAMBLE}"))
            self.starts[f] = hs

    def ids(self) -> list[str]:
        return [sid for hs in self.starts.values() for _, sid in hs]

    def at(self, path: str, lo: int, hi: int | None = None) -> list[str]:
        """Sections overlapping lines lo..hi (hi None = to the end of the file)."""
        hs = self.starts[path]
        out = []
        for i, (start, sid) in enumerate(hs):
            end = hs[i + 1][0] - 1 if i + 1 < len(hs) else float("inf")
            if start <= (hi if hi is not None else float("inf")) and end >= lo:
                out.append(sid)
        return out


def _bash_reads(command: str) -> list[tuple[str, int, int | None]]:
    """(path, first line, last line) read by simple shell commands; pipelines are split on | ; &&."""
    out = []
    for part in re.split(r"\|\||&&|[|;]", command):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        if not words:
            continue
        prog, args = words[0], [w for w in words[1:] if not w.startswith("-")]
        if prog == "sed" and len(args) >= 2 and (m := SED_LINE.match(args[0])):
            lo = int(m.group(1))
            out += [(a, lo, int(m.group(2) or lo)) for a in args[1:]]
        elif prog in ("cat", "head", "tail", "less", "more"):
            out += [(a, 1, None) for a in args if a.endswith(".md")]
    return out


def count_reads(store: Store, traces: list[list], retrieve=None) -> Accesses:
    """Counts over a list of traces (one per query; each a list of [tool, arguments, ok]).

    `retrieve(query) -> [chunk paths]` re-ranks chunk retrieval calls; without it they are not counted.
    """
    sections = SectionMap(store)
    files = Counter({f: 0 for f in sections.starts})
    secs = Counter({s: 0 for s in sections.ids()})
    unresolved = 0

    def hit(path: str, lo: int = 1, hi: int | None = None) -> None:
        nonlocal unresolved
        path = path[2:] if path.startswith("./") else path
        if path not in sections.starts:
            unresolved += 1
            return
        files[path] += 1
        for sid in sections.at(path, lo, hi):
            secs[sid] += 1

    for trace in traces:
        for name, args, ok in trace:
            if not ok:
                continue
            if name == "view" and args.get("path", "") and args["path"].endswith(".md"):
                r = args.get("view_range")
                hit(args["path"], *((r[0], None if r[1] == -1 else r[1]) if r else (1, None)))
            elif name == "read_section":
                path = args["path"]
                if path in sections.starts:
                    want = args["heading"].lstrip("#").strip().lower()
                    cands = [
                        (ln, sid) for ln, sid in sections.starts[path] if sid.split(" ", 1)[1].lower() == want
                    ] or [(ln, sid) for ln, sid in sections.starts[path] if want in sid.split(" ", 1)[1].lower()]
                    if cands:
                        files[path] += 1
                        secs[cands[0][1]] += 1
                        continue
                hit(path)
            elif name == "bash":
                for path, lo, hi in _bash_reads(args.get("command", "")):
                    hit(path, lo, hi)
            elif name == "retrieve" and retrieve is not None:
                for path in retrieve(args.get("query", "")):
                    hit(path)
    return Accesses(dict(files), dict(secs), unresolved)
