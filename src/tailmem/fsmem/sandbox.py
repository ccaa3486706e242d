"""Run a bash command in a sandbox over a copy of the store.

bubblewrap (Debian package `bubblewrap`) builds an empty root with read-only /usr, the store copy read-only at
/memory, a writable scratch folder at /scratch and a private /tmp; it unshares every namespace (no network,
own PIDs), and dies with its parent. Run as root, the command drops to `nobody`, so process and file-size
limits bind. Without bwrap we fall back to `unshare` namespaces, which isolate the network but not the tree:
`Sandbox.kind` says which one ran, and the tests require bwrap.
"""

from __future__ import annotations

import os
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tailmem.fsmem.errors import FsmemError

NOBODY = 65534
# Debian's merged /usr: the top-level folders are symlinks into /usr; non-merged systems get the real folders.
_LIBS = [
    arg
    for name in ("bin", "lib", "lib64", "sbin")
    if os.path.exists(f"/{name}")
    for arg in (("--symlink", f"usr/{name}", f"/{name}") if os.path.islink(f"/{name}") else ("--ro-bind", f"/{name}", f"/{name}"))
]


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0
    max_output_chars: int = 16_000
    max_processes: int = 64
    max_file_bytes: int = 8 * 1024 * 1024
    max_memory_bytes: int = 1024 * 1024 * 1024
    cpu_s: int = 20
    scratch_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    output: str
    timed_out: bool
    truncated: bool


def available() -> str | None:
    """'bwrap' when bubblewrap can build a sandbox here, else 'unshare', else None."""
    if shutil.which("bwrap"):
        r = subprocess.run(["bwrap", "--ro-bind", "/usr", "/usr", *_LIBS, "--unshare-all", "--die-with-parent", "true"],
                           capture_output=True)
        if r.returncode == 0:
            return "bwrap"
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], capture_output=True).returncode == 0:
        return "unshare"
    return None


class Sandbox:
    """One isolated copy of a store plus a scratch folder; `run` executes bash commands over them."""

    def __init__(self, store_root: str | os.PathLike, limits: Limits = Limits()):
        self.kind = available()
        if self.kind is None:
            raise FsmemError("Shell harness: neither bubblewrap nor unshare works here (apt-get install bubblewrap)")
        self.limits = limits
        self.base = Path(tempfile.mkdtemp(prefix="tailmem-shell-"))
        self.memory = self.base / "memory"
        shutil.copytree(store_root, self.memory, symlinks=True, ignore=shutil.ignore_patterns(".*"))
        self.drop = os.geteuid() == 0
        os.chmod(self.base, 0o755)
        for dirpath, dirnames, filenames in os.walk(self.memory):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                if not os.path.islink(os.path.join(dirpath, f)):
                    os.chmod(os.path.join(dirpath, f), 0o644)

    def argv(self, command: str) -> list[str]:
        if self.kind == "bwrap":
            return [
                "bwrap", "--ro-bind", "/usr", "/usr", *_LIBS,
                "--proc", "/proc", "--dev", "/dev", "--size", str(self.limits.scratch_bytes), "--tmpfs", "/tmp",
                "--ro-bind", str(self.memory), "/memory",
                "--perms", "1777", "--size", str(self.limits.scratch_bytes), "--tmpfs", "/scratch",
                "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
                "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/scratch", "--setenv", "LC_ALL", "C.UTF-8",
                "--chdir", "/memory", "bash", "--noprofile", "--norc", "-c", command,
            ]
        return ["unshare", "--user", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "bash", "--noprofile", "--norc", "-c", command]

    def _limit(self) -> None:
        lim = self.limits
        resource.setrlimit(resource.RLIMIT_NPROC, (lim.max_processes, lim.max_processes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim.max_file_bytes, lim.max_file_bytes))
        resource.setrlimit(resource.RLIMIT_AS, (lim.max_memory_bytes, lim.max_memory_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_s, lim.cpu_s))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.drop:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)

    def run(self, command: str) -> RunResult:
        """Run with a wall-clock limit; output past the cap stops being read and the command is killed."""
        cwd = str(self.memory) if self.kind == "unshare" else "/"
        proc = subprocess.Popen(self.argv(command), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, preexec_fn=self._limit, start_new_session=True, cwd=cwd)
        cap = self.limits.max_output_chars
        deadline = time.monotonic() + self.limits.timeout_s
        chunks, size, timed_out, truncated = [], 0, False, False
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                if not sel.select(timeout=left):
                    continue
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
                if size > cap * 4:
                    truncated = True
                    break
        if timed_out or truncated:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.stdout.close()
        code = proc.wait()
        text = b"".join(chunks).decode("utf-8", errors="replace")
        truncated = truncated or len(text) > cap
        return RunResult(code, text[:cap], timed_out, truncated)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)
