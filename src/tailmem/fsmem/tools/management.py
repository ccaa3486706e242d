"""The management (write) harness: view, create, str_replace, insert, delete, rename, and append_section.

`append_section` is our addition: file text under a heading, creating the heading (and the file) when missing.
It is how a builder records a dated fact without line arithmetic, so it never lands inside frontmatter.
"""

from __future__ import annotations

import shutil
from pathlib import PurePosixPath

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.store import Store, parse, render
from tailmem.fsmem.tools.base import Harness, Tool, params
from tailmem.fsmem.tools.reading import headings, reading_tools


def create(store: Store, path: str, description: str, content: str = "") -> str:
    if content.startswith("---\n"):
        raise ToolError("content: must not start with frontmatter; pass the description argument instead")
    store.write(path, render(description, content), overwrite=False)
    return f"created {store.relpath(path)}"


def str_replace(store: Store, path: str, old_str: str, new_str: str) -> str:
    text = store.read(path)
    if not old_str:
        raise ToolError("old_str: must be non-empty")
    count = text.count(old_str)
    if count != 1:
        raise ToolError(f"{path!r}: old_str occurs {count} times; it must occur exactly once")
    new_text = text.replace(old_str, new_str, 1)
    if parse(text, path).header_lines and not parse(new_text, path).description.strip():
        raise ToolError(f"{path!r}: the edit would remove the frontmatter description")
    store.write(path, new_text)
    return f"edited {store.relpath(path)}"


def insert(store: Store, path: str, insert_line: int, text: str) -> str:
    """Insert after line `insert_line` (0 = top); refused inside the frontmatter block."""
    old = store.read(path)
    doc = parse(old, path)
    lines = old.splitlines(keepends=True)
    if not doc.header_lines <= insert_line <= len(lines):
        raise ToolError(
            f"{path!r}: insert_line {insert_line} is outside {doc.header_lines}..{len(lines)}"
            + (" (lines 1-%d are frontmatter)" % doc.header_lines if insert_line < doc.header_lines else "")
        )
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    piece = text if text.endswith("\n") else text + "\n"
    store.write(path, "".join(lines[:insert_line]) + piece + "".join(lines[insert_line:]))
    return f"inserted {piece.count(chr(10))} line(s) into {store.relpath(path)} after line {insert_line}"


def delete(store: Store, path: str) -> str:
    rel = store.relpath(path)
    if not rel:
        raise ToolError("delete: the store root is never deleted")
    p = store.resolve(rel)
    if p.is_dir():
        shutil.rmtree(p)
    elif p.is_file():
        p.unlink()
    else:
        raise ToolError(f"path {path!r}: no such file or folder")
    return f"deleted {rel}"


def rename(store: Store, old_path: str, new_path: str) -> str:
    old, new = store.relpath(old_path), store.relpath(new_path)
    if not old or not new:
        raise ToolError("rename: the store root can be neither moved nor replaced")
    src, dst = store.resolve(old), store.resolve(new)
    if not src.exists():
        raise ToolError(f"path {old_path!r}: no such file or folder")
    if dst.exists():
        raise ToolError(f"path {new_path!r}: already exists")
    if src.is_dir() and (new + "/").startswith(old + "/"):
        raise ToolError(f"rename: cannot move folder {old!r} inside itself")
    if src.is_file() and not new.endswith(".md"):
        raise ToolError(f"path {new_path!r}: memory files must end in .md")
    store.mkdirs(str(PurePosixPath(new).parent))
    src.rename(dst)
    return f"renamed {old} -> {new}"


def section_text(old: str | None, path: str, heading: str, text: str, description: str = "") -> tuple[str, str]:
    """The file text after appending `text` to the end of section `## heading` (`old` None: the file is new),
    and what happened. Pure, so a builder on another harness (bash) can produce byte-identical files."""
    heading = heading.strip().lstrip("#").strip()
    if not heading or "\n" in heading:
        raise ToolError("heading: expected a one-line title")
    piece = text if text.endswith("\n") else text + "\n"
    if old is None:
        if not description:
            raise ToolError(f"{path!r}: does not exist; pass `description` to create it")
        return render(description, f"## {heading}\n{piece}"), f"created {path} with section {heading!r}"
    lines = old.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    hs = headings(old)
    match = [h for h in hs if h[2] == heading and h[0] > parse(old, path).header_lines]
    if not match:
        return "".join(lines) + f"\n## {heading}\n{piece}", f"added section {heading!r} to {path}"
    line, level, _ = match[0]
    end = next((ln for ln, lvl, _ in hs if ln > line and lvl <= level), None)
    cut = (end - 1) if end else len(lines)
    while cut > line and not lines[cut - 1].strip():
        cut -= 1
    return (
        "".join(lines[:cut]) + piece + "".join(lines[cut:]),
        f"appended {piece.count(chr(10))} line(s) to section {heading!r} of {path}",
    )


def append_section(store: Store, path: str, heading: str, text: str, description: str = "") -> str:
    """Append `text` at the end of section `## heading`, creating the section, or the file (needs description)."""
    p = store.resolve(path)
    old = store.read(path) if p.exists() else None
    new, what = section_text(old, store.relpath(path), heading, text, description)
    store.write(path, new, overwrite=old is not None)
    return what


def management(store: Store, ranked: bool = False) -> Harness:
    """The seven write tools (with view); `ranked` adds Center+BM25's whole-file `search`, re-indexed as the
    store changes (the center_bm25 build harness)."""
    h = Harness("management_bm25" if ranked else "management")
    for t in reading_tools(store):
        if t.name == "view":
            h.add(t)
    s = {"path": ("string", "store-relative file path ending in .md")}
    h.add(
        Tool(
            "create",
            "Create a new markdown file with a one-line description (frontmatter) and content.",
            params(
                {**s, "description": ("string", "one-line description of the file")},
                {"content": ("string", "markdown body")},
            ),
            lambda path, description, content="": create(store, path, description, content),
        )
    )
    h.add(
        Tool(
            "str_replace",
            "Replace the one occurrence of old_str in a file with new_str.",
            params({**s, "old_str": ("string", "exact text, must occur once"), "new_str": ("string", "replacement")}),
            lambda path, old_str, new_str: str_replace(store, path, old_str, new_str),
        )
    )
    h.add(
        Tool(
            "insert",
            "Insert text after a line number (0 = top of body is refused if it is frontmatter).",
            params({**s, "insert_line": ("integer", "line after which to insert"), "text": ("string", "text")}),
            lambda path, insert_line, text: insert(store, path, insert_line, text),
        )
    )
    h.add(
        Tool(
            "delete",
            "Delete a file or a folder (never the root).",
            params({"path": ("string", "file or folder")}),
            lambda path: delete(store, path),
        )
    )
    h.add(
        Tool(
            "rename",
            "Move or rename a file or folder; missing parent folders are created.",
            params({"old_path": ("string", "existing path"), "new_path": ("string", "new path")}),
            lambda old_path, new_path: rename(store, old_path, new_path),
        )
    )
    h.add(
        Tool(
            "append_section",
            "Append text to the end of a '## heading' section, creating the section or file.",
            params(
                {**s, "heading": ("string", "section title"), "text": ("string", "lines to append")},
                {"description": ("string", "one-line description, required when the file is new")},
            ),
            lambda path, heading, text, description="": append_section(store, path, heading, text, description),
        )
    )
    if ranked:
        from tailmem.fsmem.tools.ranked import FileIndex, search_tool

        h.add(search_tool(FileIndex(store, live=True)))
    return h
