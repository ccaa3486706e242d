"""Shell: one `bash` tool over an isolated copy of the store (see `tailmem.fsmem.sandbox`).

`shell` is the search harness: the copy is read-only. `shell_builder` is the build harness: the command may
change /memory, and after every command the changes are synced back into the real `Store` through its own
gate (`Store.write`, `Store.resolve`): only regular `.md` files within the per-file limit are kept, within a
cap on the store's total; symlinks, other file types, non-markdown files, oversized files and writes past the
cap are not kept and are named in the tool output (a refused change to an existing file keeps its previous
version); files that disappeared are deleted. The copy is then re-seeded from the real store, so the next
command sees exactly what was kept.
"""

from __future__ import annotations

import io
import os
import tarfile
from dataclasses import dataclass, field

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.sandbox import Limits, Sandbox
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.base import MAX_ARG_CHARS, Harness, Tool, params

MAX_COMMAND_CHARS = 4000
MAX_BUILD_COMMAND_CHARS = MAX_ARG_CHARS  # a builder writes files with heredocs, so its commands are longer
MAX_STORE_BYTES = 16 * 1024 * 1024
MAX_STORE_FILES = 5000
MAX_NAMED = 50  # refusals named one by one in the tool output; the rest are counted


class ShellHarness(Harness):
    def close(self) -> None:
        self.sandbox.close()


def _check(command: str, limit: int) -> None:
    if not command.strip() or len(command) > limit:
        raise ToolError(f"command: expected 1 to {limit} characters")


def shell(store: Store, limits: Limits = Limits()) -> Harness:
    sandbox = Sandbox(store.root, limits)

    def bash(command: str) -> str:
        _check(command, MAX_COMMAND_CHARS)
        r = sandbox.run(command)
        if r.timed_out:
            raise ToolError(f"command killed after {limits.timeout_s:g}s (time limit); output so far:\n{r.output}")
        note = f"\n[output truncated at {limits.max_output_chars} characters]" if r.truncated else ""
        return f"{r.output}{note}\n[exit {r.exit_code}]"

    h = ShellHarness("shell")
    h.sandbox = sandbox
    h.add(Tool(
        "bash",
        "Run a bash command in a sandbox. The memory store is read-only at /memory (the working directory); "
        "/scratch is writable; there is no network.",
        params({"command": ("string", "bash command")}),
        bash,
    ))
    return h


# -- the writable build harness -------------------------------------------------------------------------------
@dataclass
class SyncReport:
    """What one command changed in the real store, and what it was refused."""

    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)

    def text(self) -> str:
        out = []
        if self.written or self.deleted:
            parts = ([f"wrote {', '.join(self.written)}"] if self.written else []) + (
                [f"deleted {', '.join(self.deleted)}"] if self.deleted else [])
            out.append(f"[memory updated: {'; '.join(parts)}]")
        if self.refused:
            more = len(self.refused) - MAX_NAMED
            out.append("[not kept: " + "; ".join(f"{p} ({why})" for p, why in self.refused[:MAX_NAMED])
                       + (f"; and {more} more" if more > 0 else "") + "]")
        return "\n".join(out)


_KINDS = {tarfile.SYMTYPE: "symlink", tarfile.CHRTYPE: "character device",
          tarfile.BLKTYPE: "block device", tarfile.FIFOTYPE: "fifo"}


def read_tree(store: Store, archive: bytes) -> tuple[dict[str, bytes], set[str], list[tuple[str, str]]]:
    """The sandbox tree from its tar archive: acceptable files (path -> bytes), folders, and refusals."""
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    refused: list[tuple[str, str]] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tf:
            for m in tf:
                name = m.name[2:] if m.name.startswith("./") else m.name
                if name in ("", "."):
                    continue
                try:
                    name.encode("utf-8")
                    rel = store.relpath(name)
                except (ToolError, UnicodeError) as exc:
                    refused.append((name.encode("utf-8", "backslashreplace").decode(), str(exc)))
                    continue
                if m.isdir():
                    folders.add(rel)
                elif m.issym():
                    refused.append((rel, f"symlink to {m.linkname!r}; only regular files are kept"))
                elif not (m.isreg() or m.islnk()):
                    refused.append((rel, f"{_KINDS.get(m.type, 'special file')}; only regular files are kept"))
                elif not rel.endswith(".md"):
                    refused.append((rel, "not a .md file; memory files must end in .md"))
                else:
                    data = tf.extractfile(m).read()  # a hard link reads its target's bytes: it is kept as a copy
                    if len(data) > store.max_file_bytes:
                        refused.append((rel, f"{len(data)} bytes, at most {store.max_file_bytes} per file"))
                    else:
                        files[rel] = data
    except (tarfile.TarError, EOFError) as exc:
        raise ToolError(f"the sandbox tree could not be read back ({exc}); the memory store was not changed") from None
    return files, folders, refused


def sync(store: Store, archive: bytes, max_store_bytes: int = MAX_STORE_BYTES,
         max_files: int = MAX_STORE_FILES) -> SyncReport:
    """Make the real store match the sandbox tree, through the store's gate; see the module docstring."""
    files, folders, refused = read_tree(store, archive)
    before = {p: (store.root / p).read_bytes() for p in store.files()}
    keeps = "; previous version kept"
    report = SyncReport(refused=[(p, why + keeps if p in before else why) for p, why in refused])
    refused_paths = {p for p, _ in refused}
    gone = [p for p in before if p not in files and p not in refused_paths]
    changed = [p for p in sorted(files) if before.get(p) != files[p]]
    total = sum(len(b) for p, b in before.items() if p not in gone and p not in changed)
    count = len(before) - len(gone)
    for p in gone:
        store.resolve(p).unlink()
        report.deleted.append(p)
    _prune(store, folders)
    for d in sorted(folders):
        try:
            store.mkdirs(d)
        except ToolError as exc:
            report.refused.append((d, str(exc)))
    for p in changed:
        data = files[p]
        try:
            if total + len(data) > max_store_bytes:
                raise ToolError(f"the store would hold more than {max_store_bytes} bytes")
            if p not in before and count >= max_files:
                raise ToolError(f"the store would hold more than {max_files} files")
            store.write(p, data.decode("utf-8"))
        except (ToolError, UnicodeError) as exc:
            why = "not UTF-8 text" if isinstance(exc, UnicodeError) else str(exc)
            report.refused.append((p, why + keeps if p in before else why))
            total += len(before.get(p, b""))
            continue
        total += len(data)
        count += p not in before
        report.written.append(p)
    return report


def _prune(store: Store, keep: set[str]) -> None:
    """Remove empty real folders the sandbox no longer has (folders holding anything else stay)."""
    for dirpath, dirnames, filenames in os.walk(store.root, topdown=False):
        rel = os.path.relpath(dirpath, store.root).replace(os.sep, "/")
        hidden = any(part.startswith(".") for part in rel.split("/"))
        if rel != "." and rel not in keep and not hidden and not os.path.islink(dirpath) and not os.listdir(dirpath):
            os.rmdir(dirpath)


def shell_builder(store: Store, limits: Limits = Limits(), max_store_bytes: int = MAX_STORE_BYTES,
                  max_files: int = MAX_STORE_FILES) -> Harness:
    """The Shell build harness: `bash` over a writable copy, synced back after every command."""
    sandbox = Sandbox(store.root, limits, writable=True)

    def bash(command: str) -> str:
        _check(command, MAX_BUILD_COMMAND_CHARS)
        r = sandbox.run(command)
        if r.timed_out:
            raise ToolError(f"command killed after {limits.timeout_s:g}s (time limit); its changes to /memory were "
                            f"discarded; output so far:\n{r.output}")
        note = f"\n[output truncated at {limits.max_output_chars} characters]" if r.truncated else ""
        out = f"{r.output}{note}\n[exit {r.exit_code}]"
        if r.tree is None:
            return out + "\n[command killed (output or size limit): its changes to /memory were discarded]"
        report = sync(store, r.tree, max_store_bytes, max_files)
        sandbox.mirror(store.root, report.written + report.deleted)
        extra = report.text()
        return f"{out}\n{extra}" if extra else out

    h = ShellHarness("shell")
    h.sandbox = sandbox
    h.max_command_chars = MAX_BUILD_COMMAND_CHARS
    h.add(Tool(
        "bash",
        "Run a bash command in a sandbox. The memory store is writable at /memory (the working directory): "
        "markdown files (.md) with YAML frontmatter holding a one-line `description:`. After each command, "
        f"regular .md files of at most {store.max_file_bytes} bytes are kept; anything else (symlinks, other "
        "files) is dropped and named. /scratch and /tmp are discarded after each command; there is no network.",
        params({"command": ("string", "bash command")}),
        bash,
    ))
    return h
