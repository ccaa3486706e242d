"""Test kit for the sandbox tests: which processes a test left behind, and running a script as `nobody`.

The test process makes itself a child subreaper, so anything a sandbox leaves running (even after its
parent died) is re-parented to it and shows up among its descendants."""

import ctypes
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
NOBODY = 65534


def become_subreaper() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def release_subreaper() -> None:
    """Reap what was re-parented to us and stop being a subreaper (so later tests collect no zombies)."""
    reap()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def descendants(root: int | None = None) -> list[int]:
    """PIDs of every live (not zombie) descendant of `root` (default: this process)."""
    root = os.getpid() if root is None else root
    parent = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if fields.get("State", "").startswith("Z"):
            continue
        parent[int(pid)] = int(fields.get("PPid", "0").strip())
    out = []
    for pid in parent:
        p = pid
        while p in parent and p not in (0, 1):
            p = parent[p]
            if p == root:
                out.append(pid)
                break
    return out


def reap() -> None:
    """Collect zombies re-parented to us (a subreaper must wait for them)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def no_sandbox_left(timeout: float = 3.0) -> list[int]:
    """Wait up to `timeout` for every descendant to exit; return those still alive."""
    deadline = time.monotonic() + timeout
    while True:
        reap()
        left = descendants()
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def run_unprivileged(fn, *args, timeout: float = 120):
    """Call `fn(work, *args)` in a forked child that has dropped to uid/gid 65534 (every module is already
    imported, so the child needs nothing from root-only folders); returns its JSON-able result, or a string
    saying why this cannot run here. `work` is a fresh folder the child owns."""
    if os.geteuid() != 0:
        return "the tests do not run as root, so they cannot switch to an unprivileged user"
    work = tempfile.mkdtemp(prefix="tailmem-nobody-")
    os.chown(work, NOBODY, NOBODY)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges, run, report, and never return into pytest
        code = 0
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.environ.update(HOME=work, TMPDIR=work)
            tempfile.tempdir = work
            data = json.dumps({"ok": fn(work, *args)}).encode()
        except BaseException as exc:  # reported to the parent, which fails the test with it
            data = json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode()
            code = 1
        try:
            while data:
                data = data[os.write(w, data) :]
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    deadline = time.monotonic() + timeout
    with os.fdopen(r, "rb") as f:
        chunks.append(f.read())
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    shutil.rmtree(work, ignore_errors=True)
    out = json.loads(b"".join(chunks) or b'{"error": "the child reported nothing"}')
    if "error" in out:
        raise AssertionError(f"unprivileged child failed: {out['error']}")
    return out["ok"]
