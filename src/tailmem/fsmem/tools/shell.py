"""Shell: one `bash` tool over an isolated copy of the store (see `tailmem.fsmem.sandbox`).

`shell` is the search harness: the copy is read-only. `shell_builder` is the build harness: the command may
change /memory, and after every command (and after every sandbox process has exited) the tree comes back as
an archive only the sandbox's supervisor writes. It is read with every size checked before any byte is read,
and synced into the real `Store` through the store's own checks: only folders and regular `.md` files with
valid frontmatter, within the per-file limit and the store's caps, are kept; symlinks, hard links, sparse
files, devices, fifos, non-markdown files, names past the filesystem's byte limit, names that collide after
Unicode NFC normalisation, oversized files and writes past the caps are not kept and are named in the tool
output (a refused change to an existing file keeps its previous version); files that disappeared are deleted.

The sync is atomic: the new store tree is built beside the store and swapped in with one rename
(`renameat2(RENAME_EXCHANGE)`), so the store is replaced whole or left unchanged. Command, read-back and sync
share one time budget (`Limits.timeout_s + Limits.sync_timeout_s`); past it the store is left unchanged.
The copy is then re-seeded from the real store, so the next command sees exactly what was kept.
"""

from __future__ import annotations

import ctypes
import errno
import io
import logging
import os
import shutil
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.sandbox import Limits, Sandbox
from tailmem.fsmem.store import Store, check_description, parse, shown
from tailmem.fsmem.tools.base import MAX_ARG_CHARS, Harness, Tool, params

MAX_COMMAND_CHARS = 4000
MAX_BUILD_COMMAND_CHARS = MAX_ARG_CHARS  # a builder writes files with heredocs, so its commands are longer
MAX_STORE_BYTES = 16 * 1024 * 1024
MAX_STORE_FILES = 5000
log = logging.getLogger(__name__)
MAX_NAMED = 50  # refusals (and, separately, writes) named one by one in the tool output; the rest are counted
MAX_REPORT_CHARS = 4000  # the sync notes, which come before the command's output


class ShellHarness(Harness):
    def close(self) -> None:
        self.sandbox.close()

    def cut_note(self, r, limits: Limits) -> str:
        """The sandbox cut the command's output at `Limits.max_output_chars`: counted with the harness's other
        cuts (`truncations`, reported per episode), logged, and said to the agent."""
        if not r.truncated:
            return ""
        self.truncations += 1
        log.warning(
            "harness %s: bash output cut at the sandbox's cap of %d characters (fsmem.shell.max_output_chars)",
            self.name,
            limits.max_output_chars,
        )
        return f"\n[output truncated at {limits.max_output_chars} characters]"


def _check(command: str, limit: int) -> None:
    if not command.strip() or len(command) > limit:
        raise ToolError(f"command: expected 1 to {limit} characters")
    if "\x00" in command:
        raise ToolError("command: NUL characters are not allowed")


def _failed(r) -> None:
    if r.failure:
        raise ToolError(f"the sandbox failed ({r.failure}); nothing was changed")


def shell(store: Store, limits: Limits = Limits()) -> Harness:
    sandbox = Sandbox(store.root, limits)

    def bash(command: str) -> str:
        _check(command, MAX_COMMAND_CHARS)
        r = sandbox.run(command)
        if r.timed_out:
            raise ToolError(f"command killed after {limits.timeout_s:g}s (time limit); output so far:\n{r.output}")
        if not r.truncated:
            _failed(r)
        return f"{r.output}{h.cut_note(r, limits)}\n[exit {r.exit_code}]"

    h = ShellHarness("shell")
    h.sandbox = sandbox
    h.sandbox_info = sandbox.describe()
    h.add(
        Tool(
            "bash",
            "Run a bash command in a sandbox. The memory store is read-only at /memory (the working directory); "
            "/scratch is writable; there is no network.",
            params({"command": ("string", "bash command")}),
            bash,
        )
    )
    return h


# -- the writable build harness -------------------------------------------------------------------------------
@dataclass
class SyncReport:
    """What one command changed in the real store, and what it was refused."""

    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    tree: tuple[dict, set] | None = None  # the store's files and folders after a sync that changed it

    def text(self) -> str:
        """Refusals first, then what was kept; each list names what fits in half of MAX_REPORT_CHARS (at most
        MAX_NAMED) and counts the rest, so a long list of writes never hides a refusal."""
        out = []
        if self.refused:
            out.append("[not kept: " + _listed([f"{shown(p)} ({why[:300]})" for p, why in self.refused], "; ") + "]")
        parts = ([f"wrote {_listed([shown(p) for p in self.written], ', ')}"] if self.written else []) + (
            [f"deleted {_listed([shown(p) for p in self.deleted], ', ')}"] if self.deleted else []
        )
        if parts:
            out.append(f"[memory updated: {'; '.join(parts)}]")
        return "\n".join(out)


def _listed(items: list[str], sep: str, budget: int = MAX_REPORT_CHARS // 2) -> str:
    shown, used = [], 0
    for item in items[:MAX_NAMED]:
        if shown and used + len(item) + len(sep) > budget:
            break
        shown.append(item)
        used += len(item) + len(sep)
    more = len(items) - len(shown)
    return sep.join(shown) + (f"; and {more} more" if more > 0 else "")


_KINDS = {
    tarfile.SYMTYPE: "symlink",
    tarfile.LNKTYPE: "hard link",
    tarfile.CHRTYPE: "character device",
    tarfile.BLKTYPE: "block device",
    tarfile.FIFOTYPE: "fifo",
    tarfile.CONTTYPE: "contiguous file",
}


def _deadline_check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise ToolError(
            "reading back and syncing the sandbox tree took longer than the time limit; "
            "the memory store was not changed"
        )


def read_tree(
    store: Store,
    archive: bytes,
    max_members: int = 100_000,
    max_total_bytes: int | None = None,
    deadline: float | None = None,
) -> tuple[dict[str, bytes], set[str], list[tuple[str, str]]]:
    """The sandbox tree from its tar archive: acceptable files (path -> bytes), folders, and refusals.

    Only folders and regular files are accepted; every other member type (and GNU sparse members) is refused
    and named. A member's declared size is checked against the per-file limit, and the running total against
    `max_total_bytes`, before its bytes are read. Names are normalised to NFC; names that collide are refused."""
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    refused: list[tuple[str, str]] = []
    seen: dict[str, str] = {}  # NFC name -> the raw name first seen with it
    collided: set[str] = set()
    total = 0
    max_total = max_total_bytes if max_total_bytes is not None else len(archive)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:") as tf:
            for n, m in enumerate(tf):
                if n % 256 == 0:
                    _deadline_check(deadline)
                if n >= max_members:
                    raise ToolError(
                        f"the sandbox tree has more than {max_members} entries; the memory store was not changed"
                    )
                raw = m.name[2:] if m.name.startswith("./") else m.name
                raw = raw.rstrip("/")
                if raw in ("", "."):
                    continue
                shown = raw.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                try:
                    shown.encode("utf-8")
                    if shown != raw:
                        raise ToolError(f"path {shown!r}: not valid UTF-8")
                    rel = store.relpath(raw)
                except ToolError as exc:
                    refused.append((shown, str(exc)))
                    continue
                if rel in seen and seen[rel] != raw:
                    collided.add(rel)
                    refused.append((shown, f"the same name as {seen[rel]!r} after Unicode NFC normalisation"))
                    continue
                seen.setdefault(rel, raw)
                if m.isdir():
                    folders.add(rel)
                elif m.issym():
                    refused.append((rel, f"symlink to {m.linkname[:100]!r}; only regular files are kept"))
                elif m.type not in (tarfile.REGTYPE, tarfile.AREGTYPE) or m.issparse():
                    kind = "sparse file" if m.issparse() else _KINDS.get(m.type, f"special entry (type {m.type!r})")
                    refused.append((rel, f"{kind}; only regular files are kept"))
                elif not rel.endswith(".md"):
                    refused.append((rel, "not a .md file; memory files must end in .md"))
                elif m.size > store.max_file_bytes:
                    refused.append((rel, f"{m.size} bytes, at most {store.max_file_bytes} per file"))
                elif total + m.size > max_total:
                    refused.append((rel, f"the tree would hold more than {max_total} bytes"))
                else:
                    data = tf.extractfile(m).read(m.size)
                    total += len(data)
                    files[rel] = data
    except (tarfile.TarError, EOFError) as exc:
        raise ToolError(f"the sandbox tree could not be read back ({exc}); the memory store was not changed") from None
    for rel in collided:  # every spelling of a colliding name is refused, the first one too
        if rel in files or rel in folders:
            files.pop(rel, None)
            folders.discard(rel)
            refused.append((rel, "another name in the tree is the same after Unicode NFC normalisation"))
    return files, folders, refused


def sync(
    store: Store,
    archive: bytes,
    max_store_bytes: int = MAX_STORE_BYTES,
    max_files: int = MAX_STORE_FILES,
    deadline: float | None = None,
) -> SyncReport:
    """Make the real store match the sandbox tree, through the store's checks, atomically; see the module
    docstring. Raises ToolError (store unchanged) when the tree cannot be read or the deadline passes."""
    files, folders, refused = read_tree(
        store, archive, max_total_bytes=max(max_store_bytes, 1) * 2 + (1 << 20), deadline=deadline
    )
    before = {p: (store.root / p).read_bytes() for p in store.files()}
    keeps = "; previous version kept"
    report = SyncReport(refused=[(p, why + keeps if p in before else why) for p, why in refused])
    refused_paths = {p for p, _ in refused}
    gone = [p for p in before if p not in files and p not in refused_paths]
    changed = [p for p in sorted(files) if before.get(p) != files[p]]
    final = {p: b for p, b in before.items() if p not in gone}
    total = sum(len(b) for p, b in final.items() if p not in changed)
    count = len(final)
    for p in changed:
        _deadline_check(deadline)
        data = files[p]
        try:
            if total + len(data) > max_store_bytes:
                raise ToolError(f"the store would hold more than {max_store_bytes} bytes")
            if p not in before and count >= max_files:
                raise ToolError(f"the store would hold more than {max_files} files")
            _check_file(store, p, data)
        except ToolError as exc:
            report.refused.append((p, str(exc) + keeps if p in before else str(exc)))
            if p in before:
                total += len(before[p])
            continue
        total += len(data)
        count += p not in before
        final[p] = data
        report.written.append(p)
    report.deleted = sorted(gone)
    if report.written or report.deleted or _folders_differ(store, folders, final):
        _swap_in(store, final, folders, set(final) - set(report.written), deadline)
        report.tree = (final, _visible_folders(store))
    return report


def _check_file(store: Store, path: str, data: bytes) -> None:
    """The checks `Store.write` makes, without writing: UTF-8, valid frontmatter, a one-line description."""
    try:
        text = data.decode("utf-8")
    except UnicodeError:
        raise ToolError("not UTF-8 text") from None
    check_description(parse(text, path).description, path)


def _visible_folders(store: Store) -> set[str]:
    out = set()
    for dirpath, dirnames, _ in os.walk(store.root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d))]
        rel = os.path.relpath(dirpath, store.root)
        if rel != ".":
            out.add(rel.replace(os.sep, "/"))
    return out


def _folders_differ(store: Store, folders: set[str], final: dict[str, bytes]) -> bool:
    want = set(folders)
    for p in final:
        parts = p.split("/")[:-1]
        want.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    have = _visible_folders(store)
    return bool(want - have) or any(not os.listdir(store.root / d) for d in have - want)


def _swap_in(
    store: Store, final: dict[str, bytes], folders: set[str], unchanged: set[str], deadline: float | None
) -> None:
    """Build the new store tree beside the store and exchange the two in one rename; the old tree is removed.
    Unchanged files are hard-linked from the old tree (copied where links fail); everything the sandbox never
    saw (hidden names, the store's own symlinks) is carried over unchanged."""
    root = store.root
    stage = Path(tempfile.mkdtemp(prefix=f".{root.name}.sync-", dir=root.parent))
    try:
        os.chmod(stage, os.stat(root).st_mode & 0o7777)
        _carry_unseen(root, stage)
        for d in sorted(folders):
            _deadline_check(deadline)
            os.makedirs(stage / d, exist_ok=True)
        for i, (p, data) in enumerate(sorted(final.items())):
            if i % 64 == 0:
                _deadline_check(deadline)
            target = stage / p
            target.parent.mkdir(parents=True, exist_ok=True)
            if p in unchanged:
                try:
                    os.link(root / p, target, follow_symlinks=False)
                    continue
                except OSError:
                    pass
            with open(target, "xb") as f:
                f.write(data)
        _deadline_check(deadline)
        _exchange(stage, root)
    except OSError as exc:
        shutil.rmtree(stage, ignore_errors=True)
        raise ToolError(f"the sync failed ({type(exc).__name__}: {exc}); the memory store was not changed") from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    shutil.rmtree(stage, ignore_errors=True)  # now the old tree


def _carry_unseen(root: Path, stage: Path) -> None:
    """Copy hidden entries and symlinks (never shown to the sandbox) into the new tree, links as links."""
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        keep_dirs = []
        for name in dirnames + filenames:
            src = Path(dirpath) / name
            if name.startswith(".") or src.is_symlink():
                dst = stage / rel / name
                dst.parent.mkdir(parents=True, exist_ok=True)
                if src.is_symlink():
                    os.symlink(os.readlink(src), dst)
                elif src.is_dir():
                    shutil.copytree(src, dst, symlinks=True)
                else:
                    shutil.copy2(src, dst)
            elif name in dirnames:
                keep_dirs.append(name)
        dirnames[:] = keep_dirs


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> None:
    """Swap two paths atomically (Linux renameat2); where that is missing, two renames with a way back."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        fn = None
    if fn is not None:
        at_fdcwd = -100
        if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(b))
    aside = a.with_name(a.name + ".old")
    os.rename(b, aside)
    try:
        os.rename(a, b)
    except OSError:
        os.rename(aside, b)
        raise
    os.rename(aside, a)


def shell_builder(
    store: Store, limits: Limits = Limits(), max_store_bytes: int = MAX_STORE_BYTES, max_files: int = MAX_STORE_FILES
) -> Harness:
    """The Shell build harness: `bash` over a writable copy, synced back after every command."""
    sandbox = Sandbox(store.root, limits, writable=True)

    def bash(command: str) -> str:
        _check(command, MAX_BUILD_COMMAND_CHARS)
        start = time.monotonic()
        r = sandbox.run(command)
        if r.timed_out:
            raise ToolError(
                f"command killed after {limits.timeout_s:g}s (time limit); its changes to /memory were "
                f"discarded; output so far:\n{r.output}"
            )
        body = f"{r.output}{h.cut_note(r, limits)}"
        out = f"{body}\n[exit {r.exit_code}]" if body.strip() else f"[exit {r.exit_code}]"
        if r.tree is None:
            if r.failure and not r.truncated:
                raise ToolError(f"the sandbox failed ({r.failure}); the memory store was not changed; output:\n{out}")
            return "[command killed (output or size limit): its changes to /memory were discarded]\n" + out
        deadline = start + limits.timeout_s + limits.sync_timeout_s
        report = sync(store, r.tree, max_store_bytes, max_files, deadline)
        if report.tree is not None:  # unchanged store: the copy the next command starts from is still right
            sandbox.reseed_from(*report.tree)
        extra = report.text()
        return f"{extra}\n{out}" if extra else out

    h = ShellHarness("shell")
    h.sandbox = sandbox
    h.sandbox_info = sandbox.describe()
    h.max_command_chars = MAX_BUILD_COMMAND_CHARS
    h.add(
        Tool(
            "bash",
            "Run a bash command in a sandbox. The memory store is writable at /memory (the working directory): "
            "markdown files (.md) with YAML frontmatter holding a one-line `description:`. After each command, "
            f"regular .md files of at most {store.max_file_bytes} bytes are kept; anything else (symlinks, other "
            "files) is dropped and named. /scratch and /tmp are discarded after each command; there is no network.",
            params({"command": ("string", "bash command")}),
            bash,
        )
    )
    return h
