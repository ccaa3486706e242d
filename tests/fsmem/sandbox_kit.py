"""Test kit for the sandbox tests: which processes a test left behind, and running a script as `nobody`.

The test process makes itself a child subreaper, so anything a sandbox leaves running (even after its
parent died) is re-parented to it and shows up among its descendants."""

import ctypes
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
NOBODY = 65534
SRC = str(Path(__file__).resolve().parents[2] / "src")


def become_subreaper() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


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


def run_as_nobody(script: str, timeout: float = 120) -> subprocess.CompletedProcess | str:
    """Run a Python script as uid/gid 65534 (setpriv) with the package on its path; a string says why not."""
    if os.geteuid() != 0:
        return "the tests do not run as root, so they cannot switch to an unprivileged user"
    setpriv = "/usr/bin/setpriv"
    if not os.path.exists(setpriv):
        return "setpriv (util-linux) is not installed"
    work = tempfile.mkdtemp(prefix="tailmem-nobody-")
    os.chown(work, NOBODY, NOBODY)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": SRC, "HOME": work, "TMPDIR": work,
           "OPENAI_API_KEY": "sk-NOBODY-CANARY-0000"}
    try:
        return subprocess.run([setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable,
                               "-c", script, work], capture_output=True, text=True, timeout=timeout, env=env, cwd=work)
    finally:
        subprocess.run(["rm", "-rf", work], check=False)
