"""Run a bash command in a sandbox over a copy of the store.

bubblewrap (Debian package `bubblewrap`) builds an empty root with read-only /usr, the store copy read-only at
/memory, a writable scratch folder at /scratch and a private /tmp; it unshares every namespace (no network,
own PIDs), and dies with its parent. Run as root, the command drops to `nobody`, so process and file-size
limits bind. Without bwrap we fall back to `unshare` namespaces, which isolate the network but not the tree:
`Sandbox.kind` says which one ran, and the tests require bwrap.

Writable mode (the Shell *build* harness, bwrap only): /memory is a size-capped tmpfs seeded from the copy
(read-only at /seed) before every command. After the command, everything it left running is killed and the
tree is packed with tar into a pipe the command itself cannot inherit; `RunResult.tree` carries that archive.
The host never walks a folder the sandbox can write, and nothing the sandbox wrote reaches the real store
except through the checks of `tailmem.fsmem.tools.shell` (which re-seeds the copy from the real store).
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
    memory_bytes: int = 64 * 1024 * 1024  # writable mode: size of the /memory tmpfs


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    output: str
    timed_out: bool
    truncated: bool
    tree: bytes | None = None  # writable mode: tar archive of /memory after the command; None if it was killed


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


# Writable mode: seed /memory, run the command ($1) without the archive pipe (fd 3), kill whatever it left
# running, make everything readable, pack the tree into fd 3. The command's exit code is the script's.
_WRITABLE = (
    "cp -R /seed/. /memory/ 2>/dev/null; cd /memory || exit 125; "
    'bash --noprofile --norc -c "$1" 3>&-; code=$?; '
    "kill -KILL -1 2>/dev/null; chmod -R u+rwX /memory 2>/dev/null; "
    "tar -C /memory -cf - . 2>/dev/null >&3; exit $code"
)
_TREE_FD = 3


def _readable_only(folder: str, names: list[str]) -> set[str]:
    """copytree filter of the writable seed: hidden names and symlinks stay behind."""
    return {n for n in names if n.startswith(".") or os.path.islink(os.path.join(folder, n))}


class Sandbox:
    """One isolated copy of a store plus a scratch folder; `run` executes bash commands over them."""

    def __init__(self, store_root: str | os.PathLike, limits: Limits = Limits(), writable: bool = False):
        self.kind = available()
        if self.kind is None:
            raise FsmemError("Shell harness: neither bubblewrap nor unshare works here (apt-get install bubblewrap)")
        if writable and self.kind != "bwrap":
            raise FsmemError("fsmem.build_harness=shell: a writable sandbox needs bubblewrap (apt-get install bubblewrap)")
        self.limits = limits
        self.writable = writable
        self.base = Path(tempfile.mkdtemp(prefix="tailmem-shell-"))
        self.memory = self.base / "memory"
        self.drop = os.geteuid() == 0
        os.chmod(self.base, 0o755)
        self.reseed(store_root)

    def reseed(self, store_root: str | os.PathLike) -> None:
        """Replace the copy with the store as it is now (writable mode: only folders and regular files)."""
        shutil.rmtree(self.memory, ignore_errors=True)
        ignore = _readable_only if self.writable else shutil.ignore_patterns(".*")
        shutil.copytree(store_root, self.memory, symlinks=True, ignore=ignore)
        for dirpath, dirnames, filenames in os.walk(self.memory):
            os.chmod(dirpath, 0o755)
            for f in filenames:
                if not os.path.islink(os.path.join(dirpath, f)):
                    os.chmod(os.path.join(dirpath, f), 0o644)

    def mirror(self, store_root: str | os.PathLike, paths: list[str]) -> None:
        """Bring the copy up to date for the store paths that changed (cheaper than `reseed`), then its folders."""
        root = Path(store_root)
        for rel in paths:
            src, dst = root / rel, self.memory / rel
            if src.is_file() and not src.is_symlink():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
                os.chmod(dst, 0o644)
            elif dst.is_file():
                dst.unlink()
        for dirpath, dirnames, _ in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d))]
            for d in dirnames:
                (self.memory / Path(dirpath).relative_to(root) / d).mkdir(mode=0o755, exist_ok=True)
        for dirpath, _, _ in os.walk(self.memory, topdown=False):
            rel = Path(dirpath).relative_to(self.memory)
            if rel != Path(".") and not (root / rel).is_dir():
                shutil.rmtree(dirpath, ignore_errors=True)
        for dirpath, dirnames, _ in os.walk(self.memory):
            os.chmod(dirpath, 0o755)

    def argv(self, command: str) -> list[str]:
        if self.kind == "bwrap":
            if self.writable:
                memory = ["--ro-bind", str(self.memory), "/seed",
                          "--perms", "0755", "--size", str(self.limits.memory_bytes), "--tmpfs", "/memory"]
                script = [_WRITABLE, "tailmem-shell", command]
            else:
                memory = ["--ro-bind", str(self.memory), "/memory"]
                script = [command]
            return [
                "bwrap", "--ro-bind", "/usr", "/usr", *_LIBS,
                "--proc", "/proc", "--dev", "/dev", "--size", str(self.limits.scratch_bytes), "--tmpfs", "/tmp",
                *memory,
                "--perms", "1777", "--size", str(self.limits.scratch_bytes), "--tmpfs", "/scratch",
                "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
                "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/scratch", "--setenv", "LC_ALL", "C.UTF-8",
                "--chdir", "/memory", "bash", "--noprofile", "--norc", "-c", *script,
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
        """Run with a wall-clock limit; output past the cap stops being read and the command is killed.
        Writable mode also reads the archive of /memory (at most twice the tmpfs size, else it is dropped)."""
        cwd = str(self.memory) if self.kind == "unshare" else "/"
        tree_r = tree_w = None
        preexec, keep = self._limit, ()
        if self.writable:
            tree_r, tree_w = os.pipe()

            def preexec() -> None:
                self._limit()
                if tree_w != _TREE_FD:
                    os.dup2(tree_w, _TREE_FD)

            keep = (_TREE_FD,)  # the original write end is closed in the child (close_fds runs after preexec)
        try:
            proc = subprocess.Popen(self.argv(command), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, preexec_fn=preexec, start_new_session=True, cwd=cwd,
                                    pass_fds=keep)
        finally:
            if tree_w is not None:
                os.close(tree_w)
        cap = self.limits.max_output_chars
        tree_cap = 2 * self.limits.memory_bytes + (1 << 20)
        deadline = time.monotonic() + self.limits.timeout_s
        chunks, size, timed_out, truncated = [], 0, False, False
        tree, tree_size, overflow = [], 0, False
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            if tree_r is not None:
                sel.register(tree_r, selectors.EVENT_READ, "tree")
            open_fds = len(sel.get_map())
            while open_fds and not (timed_out or truncated or overflow):
                left = deadline - time.monotonic()
                if left <= 0:
                    timed_out = True
                    break
                for key, _ in sel.select(timeout=left):
                    data = os.read(key.fd, 65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        open_fds -= 1
                    elif key.data == "out":
                        chunks.append(data)
                        size += len(data)
                        truncated = size > cap * 4
                    else:
                        tree.append(data)
                        tree_size += len(data)
                        if tree_size > tree_cap:
                            overflow = True
                    if truncated or overflow:
                        break
        if timed_out or truncated or overflow:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.stdout.close()
        if tree_r is not None:
            os.close(tree_r)
        code = proc.wait()
        text = b"".join(chunks).decode("utf-8", errors="replace")
        truncated = truncated or len(text) > cap
        archive = None if tree_r is None or timed_out or truncated or overflow else b"".join(tree)
        return RunResult(code, text[:cap], timed_out, truncated, archive)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)
