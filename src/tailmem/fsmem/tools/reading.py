"""The read-only tools over a store: view, grep, toc, read_section. Shared by the Center harnesses and
the management harness (which needs to look before it writes)."""

from __future__ import annotations

import re

import regex

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.store import Store, parse
from tailmem.fsmem.tools.base import Tool, params

MAX_PATTERN_CHARS = 300
GREP_TIMEOUT_S = 2.0
PATTERN_SYNTAX = re.compile(r"[\\|()\[\].*+?{}^$]")  # a pattern without any of these is a literal phrase
COMPACT_GREP_RESULTS = 12  # a small model's grep page (Tool.compact): about 500 tokens of hits, not 50 lines
# A small model's grep pattern: one word, or words joined by |, decoded under this JSON-schema pattern (a 1.5B
# model otherwise greps the question's whole phrase, which matches no line, and repeats it).
COMPACT_PATTERN = {
    "description": "one word, or alternatives joined by | (no spaces)",
    "pattern": "^[A-Za-z0-9|'-]{2,40}$",
}
HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")


def numbered(lines: list[str], start: int = 1) -> str:
    return "\n".join(f"{i:>5}\t{line}" for i, line in enumerate(lines, start))


def view(store: Store, path: str = "", view_range: list | None = None) -> str:
    """A folder: the tree with each file's description. A file: its lines, numbered from 1 (frontmatter included)."""
    target = store.resolve(path)
    if target.is_dir():
        entries = store.entries(path)
        if not entries:
            return f"{store.relpath(path) or '/'}: empty folder"
        return "\n".join(f"{e.path}  ({e.bytes} bytes) - {e.description}" for e in entries)
    lines = store.read(path).splitlines()
    start, end = 1, len(lines)
    if view_range:
        if len(view_range) != 2:
            raise ToolError("view_range: expected [start, end] (1-based, end inclusive; -1 = to the end)")
        start, end = view_range[0], (len(lines) if view_range[1] == -1 else view_range[1])
        if not 1 <= start <= max(end, 1) or end > len(lines) + 1:
            raise ToolError(f"view_range {view_range}: out of range for {path!r} ({len(lines)} lines)")
    return numbered(lines[start - 1 : end], start)


def grep(
    store: Store, pattern: str, path: str = "", ignore_case: bool = True, max_results: int = 50, sections: bool = False
) -> str:
    """Regex search, scoped to a file or folder; prints `path:line:text` like `grep -rn`, over the files' bodies.

    The frontmatter is not searched: its description is what `view` of a folder already shows, and in a dated store
    every description holds a date, so a pattern with a date word spent the page on them. `sections`: before the
    hits of each section, a line naming it (`== path # heading`), so a hit's dated heading comes with it; a heading
    that matches is named that way and costs no hit, for the same reason."""
    if not pattern or len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(f"pattern: expected 1 to {MAX_PATTERN_CHARS} characters")
    try:
        rx = regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except regex.error as exc:
        raise ToolError(f"pattern {pattern!r}: invalid regular expression ({exc})") from None
    max_results = max(1, min(int(max_results), 500))
    hits, total, shown = [], 0, 0
    for f in store.files(path):
        section, named = None, None
        text = store.read(f)
        skip = parse(text, f).header_lines
        for i, line in enumerate(text.splitlines()[skip:], skip + 1):
            heading = HEADING.match(line) if sections else None
            if heading:
                section = heading.group(2)
            try:
                found = rx.search(line, timeout=GREP_TIMEOUT_S)
            except TimeoutError:
                raise ToolError(
                    f"pattern {pattern!r}: took longer than {GREP_TIMEOUT_S}s on one line; simplify it"
                ) from None
            if not found:
                continue
            total += not heading
            if shown >= max_results:
                continue
            if sections and section is not None and (f, section) != named:
                hits.append(f"== {f} # {section}")
                named = (f, section)
            if not heading:
                hits.append(f"{f}:{i}:{line}")
                shown += 1
    if not hits:
        phrase = " " in pattern.strip() and not PATTERN_SYNTAX.search(pattern)
        hint = " (a pattern matches within one line: grep a single word of the phrase)" if phrase else ""
        return f"no match for {pattern!r} under {store.relpath(path) or '/'}{hint}"
    more = f"\n[{total - shown} more matches not shown]" if total > shown else ""
    return "\n".join(hits) + more


def headings(text: str) -> list[tuple[int, int, str]]:
    """(line number, level, title) of each markdown heading outside the frontmatter."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        m = HEADING.match(line)
        if m:
            out.append((i, len(m.group(1)), m.group(2)))
    return out


def toc(store: Store, path: str = "") -> str:
    """Headings with line numbers, for one file or every file under a folder."""
    blocks = []
    for f in store.files(path):
        doc_lines = headings(store.read(f))
        body = "\n".join(f"  {ln:>5} {'#' * lvl} {title}" for ln, lvl, title in doc_lines) or "  (no headings)"
        blocks.append(f"{f}\n{body}")
    return "\n".join(blocks) if blocks else f"{store.relpath(path) or '/'}: no files"


def read_section(store: Store, path: str, heading: str) -> str:
    """The lines of one section: from its heading to the next heading of the same or a higher level."""
    text = store.read(path)
    hs = headings(text)
    want = heading.lstrip("#").strip().lower()
    match = [h for h in hs if h[2].lower() == want] or [h for h in hs if want and want in h[2].lower()]
    if not match:
        raise ToolError(f"{path!r}: no heading matching {heading!r}; use toc to list them")
    line, level, _ = match[0]
    end = next((ln for ln, lvl, _ in hs if ln > line and lvl <= level), None)
    lines = text.splitlines()
    return numbered(lines[line - 1 : (end - 1) if end else len(lines)], line)


def reading_tools(store: Store) -> list[Tool]:
    return [
        Tool(
            "view",
            "Show a folder as a tree of files with their one-line descriptions, or a file with line numbers.",
            params(
                {},
                {
                    "path": ("string", "store-relative path; '' or '/' is the root"),
                    "view_range": ("array", "[start, end] lines of a file, 1-based, end -1 = to the end"),
                },
            ),
            lambda path="", view_range=None: view(store, path, view_range),
            compact=("path",),
        ),
        Tool(
            "grep",
            "Regular-expression search over file lines, scoped to a file or folder; prints path:line:text.",
            params(
                {"pattern": ("string", "Python regular expression")},
                {
                    "path": ("string", "file or folder to search; default the whole store"),
                    "ignore_case": ("boolean", "default true"),
                    "max_results": ("integer", "default 50, at most 500"),
                    "sections": ("boolean", "name the heading each hit lies under; default false"),
                },
            ),
            lambda pattern, path="", ignore_case=True, max_results=50, sections=False: grep(
                store, pattern, path, ignore_case, max_results, sections
            ),
            compact=("pattern",),
            compact_defaults={"max_results": COMPACT_GREP_RESULTS, "sections": True},
            compact_properties={"pattern": COMPACT_PATTERN},
        ),
        Tool(
            "toc",
            "Table of contents: the headings (with line numbers) of a file or of every file under a folder.",
            params({}, {"path": ("string", "file or folder; default the whole store")}),
            lambda path="": toc(store, path),
            small=False,
        ),
        Tool(
            "read_section",
            "Read one section of a file: from the heading to the next heading of the same or higher level.",
            params({"path": ("string", "file path"), "heading": ("string", "heading title (exact, else substring)")}),
            lambda path, heading: read_section(store, path, heading),
            small=False,
        ),
    ]
