"""The store: a rooted tree of markdown files, each with YAML frontmatter holding a one-line description.

Every path an agent names goes through `Store.resolve`, the single gate that keeps reads and writes inside the
root: store-relative POSIX paths only, no `..`, no hidden names, no symlinks anywhere on the way.
"""

from __future__ import annotations

import functools
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from tailmem.fsmem import frontmatter_safe
from tailmem.fsmem.errors import ToolError

MAX_PATH_CHARS = 256
MAX_DESCRIPTION_CHARS = 300
MAX_FILE_BYTES = 256 * 1024
SUFFIX = ".md"
NAME_MAX_BYTES = 255  # the filesystem's limit on one name (ext4, tmpfs, xfs, btrfs)
TEMP_AFFIX = (".", ".tmp")  # `write` goes through `.{name}.tmp`, so a name must leave room for these
MAX_NAME_BYTES = NAME_MAX_BYTES - sum(len(a) for a in TEMP_AFFIX)


@dataclass(frozen=True)
class Entry:
    """One file as the store lists it: names and descriptions come before contents."""

    path: str
    description: str
    bytes: int


@dataclass(frozen=True)
class Document:
    """A parsed file: `header_lines` is the number of lines the frontmatter block takes (0 if none)."""

    description: str
    body: str
    header_lines: int


def render(description: str, body: str) -> str:
    """The file text for a description and a body; the one place the frontmatter format is written."""
    check_description(description)
    body = body if body.endswith("\n") or not body else body + "\n"
    header = yaml.safe_dump({"description": description}, allow_unicode=True, width=10**6)
    return f"---\n{header}---\n{body}"


def check_description(description: str, path: str = "") -> None:
    where = f"{path}: description" if path else "description"
    if not isinstance(description, str) or not description.strip():
        raise ToolError(f"{where}: expected a non-empty one-line string")
    if "\n" in description or "\r" in description:
        raise ToolError(f"{where}: must be one line (no newlines)")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise ToolError(f"{where}: {len(description)} characters, at most {MAX_DESCRIPTION_CHARS}")


def parse(text: str, path: str = "?") -> Document:
    """Split frontmatter from body. A file must open with a `---` line, a YAML mapping holding a non-empty
    one-line string `description`, and a closing `---` line (LF line endings); anything else is refused,
    so a file the store keeps always has a description. The YAML goes through `frontmatter_safe`."""
    if text.startswith("---\r\n"):
        raise ToolError(f"{path}: frontmatter lines end in CRLF; write LF line endings")
    if not text.startswith("---\n"):
        raise ToolError(
            f"{path}: no frontmatter; a memory file starts with '---', a 'description: ...' line, and '---'"
        )
    end = text.find("\n---\n", 3)
    if end < 0:
        end_eof = text.find("\n---", 3)
        if end_eof >= 0 and text[end_eof + 4 :].strip() == "":
            end = end_eof
        else:
            raise ToolError(f"{path}: frontmatter opened with '---' but never closed")
    head = text[4:end]
    try:
        meta = _frontmatter(head)
    except frontmatter_safe.FrontmatterError as exc:
        raise ToolError(f"{path}: frontmatter refused: {exc}") from None
    if not isinstance(meta, dict):
        raise ToolError(f"{path}: frontmatter must be a mapping with a `description` key")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ToolError(f"{path}: frontmatter `description` must be a non-empty string")
    header_lines = head.count("\n") + 3 if head else 2
    body = text[end + 5 :] if end + 5 <= len(text) else ""
    return Document(description, body, header_lines)


@functools.lru_cache(maxsize=16384)
def _frontmatter(head: str):
    """A frontmatter block's YAML, parsed once per distinct text: the same files are read again and again (every
    search, every snapshot of a growing store), and the YAML parser was most of a read. Callers only read it."""
    return frontmatter_safe.load(head)


def shown(path: str, keep: int = 60) -> str:
    """A path as an error message names it: long ones shortened in the middle (the message stays readable)."""
    return path if len(path) <= keep else f"{path[: keep - 25]}...{path[-20:]} ({len(path)} characters)"


class Store:
    """A rooted markdown tree. Paths are store-relative; `""`, `"."` and `"/"` name the root."""

    def __init__(self, root: str | os.PathLike, max_file_bytes: int = MAX_FILE_BYTES):
        self.root = Path(root).resolve()
        self.max_file_bytes = max_file_bytes
        self.root.mkdir(parents=True, exist_ok=True)

    # -- the path gate -------------------------------------------------------------------------------
    def relpath(self, path: str) -> str:
        """Validate a path string and return it normalised (no leading `./`, no trailing `/`, Unicode NFC,
        every name at most MAX_NAME_BYTES of UTF-8 so its temporary `.{name}.tmp` fits the filesystem)."""
        if not isinstance(path, str):
            raise ToolError(f"path: expected a string, got {type(path).__name__}")
        try:
            path = unicodedata.normalize("NFC", path)
            path.encode("utf-8")
        except UnicodeError:
            raise ToolError(f"path {path.encode('utf-8', 'backslashreplace').decode()!r}: not valid Unicode") from None
        if path in ("", ".", "/", "./"):
            return ""
        if len(path) > MAX_PATH_CHARS:
            raise ToolError(f"path: {len(path)} characters, at most {MAX_PATH_CHARS}")
        if any(ord(c) < 32 for c in path) or "\\" in path:
            raise ToolError(f"path {shown(path)!r}: control characters and backslashes are not allowed")
        if path.startswith("/") or path.startswith("~") or (len(path) > 1 and path[1] == ":"):
            raise ToolError(f"path {shown(path)!r}: absolute paths are refused; paths are relative to the store root")
        parts = [p for p in PurePosixPath(path).parts if p != "."]
        for part in parts:
            if part == "..":
                raise ToolError(f"path {shown(path)!r}: '..' is refused; every path stays inside the store")
            if part.startswith("."):
                raise ToolError(f"path {shown(path)!r}: hidden names (starting with '.') are reserved")
            if len(part.encode("utf-8")) > MAX_NAME_BYTES:
                raise ToolError(
                    f"path {shown(path)!r}: a name has {len(part.encode('utf-8'))} bytes of "
                    f"UTF-8, at most {MAX_NAME_BYTES}"
                )
        return "/".join(parts)

    def resolve(self, path: str) -> Path:
        """The filesystem path for a store path, refusing any symlink on the way and anything outside the root."""
        rel = self.relpath(path)
        target = self.root
        for part in rel.split("/") if rel else []:
            target = target / part
            if target.is_symlink():
                raise ToolError(
                    f"path {path!r}: symlinks are refused ({'/'.join(target.relative_to(self.root).parts)})"
                )
        real = Path(os.path.realpath(target))
        if real != self.root and self.root not in real.parents:
            raise ToolError(f"path {path!r}: resolves outside the store")
        return target

    def rel(self, p: Path) -> str:
        return p.relative_to(self.root).as_posix()

    # -- reading -------------------------------------------------------------------------------------
    def files(self, under: str = "") -> list[str]:
        """Store paths of all markdown files under a folder, sorted; symlinks and hidden names are skipped."""
        base = self.resolve(under)
        if base.is_file():
            return [self.rel(base)]
        if not base.is_dir():
            raise ToolError(f"path {under!r}: no such file or folder")
        out = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d))
            )
            for name in sorted(filenames):
                full = Path(dirpath) / name
                if name.startswith(".") or full.is_symlink():
                    continue
                out.append(self.rel(full))
        return out

    def read(self, path: str) -> str:
        p = self.resolve(path)
        if not p.is_file():
            raise ToolError(f"path {path!r}: no such file" + (" (it is a folder)" if p.is_dir() else ""))
        return p.read_text(encoding="utf-8", errors="replace")

    def document(self, path: str) -> Document:
        return parse(self.read(path), path)

    def entries(self, under: str = "") -> list[Entry]:
        out = []
        for f in self.files(under):
            try:
                desc = self.document(f).description
            except ToolError:
                desc = "(unreadable frontmatter)"
            out.append(Entry(f, desc, (self.root / f).stat().st_size))
        return out

    # -- writing (the management harness is the only caller) -----------------------------------------
    def write(self, path: str, text: str, overwrite: bool = True) -> Path:
        rel = self.relpath(path)
        if not rel:
            raise ToolError("path '': the root is a folder, not a file")
        if not rel.endswith(SUFFIX):
            raise ToolError(f"path {path!r}: memory files must end in {SUFFIX}")
        data = text.encode("utf-8")
        if len(data) > self.max_file_bytes:
            raise ToolError(f"path {path!r}: {len(data)} bytes, at most {self.max_file_bytes} per file")
        check_description(parse(text, path).description, path)
        p = self.resolve(rel)
        if p.is_dir():
            raise ToolError(f"path {path!r}: is a folder")
        if p.exists() and not overwrite:
            raise ToolError(f"path {path!r}: already exists (use str_replace, insert or append_section to edit)")
        self.mkdirs(str(PurePosixPath(rel).parent))
        tmp = p.with_name(f".{p.name}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, p)
        return p

    def mkdirs(self, path: str) -> Path:
        """Create a folder and its parents, checking each level against the gate."""
        rel = self.relpath(path)
        cur = ""
        for part in rel.split("/") if rel else []:
            cur = f"{cur}/{part}" if cur else part
            p = self.resolve(cur)
            if p.exists() and not p.is_dir():
                raise ToolError(f"path {path!r}: {cur!r} is a file, not a folder")
            p.mkdir(exist_ok=True)
        return self.resolve(rel)

    # -- structure -----------------------------------------------------------------------------------
    def stats(self) -> dict:
        """Store structure: files, folders, sections (headings), bytes, maximum depth."""
        files = self.files()
        folders = {str(PurePosixPath(f).parent) for f in files} - {"."}
        sections = 0
        total = 0
        for f in files:
            text = self.read(f)
            total += len(text.encode("utf-8"))
            sections += sum(1 for line in text.splitlines() if line.startswith("#"))
        depth = max((f.count("/") + 1 for f in files), default=0)
        return {"files": len(files), "folders": len(folders), "sections": sections, "bytes": total, "depth": depth}
