"""Run a bash command in a sandbox over a copy of the store; the sandbox sees nothing of the host.

Layout (bubblewrap, Debian package `bubblewrap`, plus util-linux `unshare`, `mount` and `setpriv`):

* The host starts `bwrap` from an explicit minimal environment (PATH only) and, when it runs as root, as
  `nobody`; nothing of the host environment or any host temporary path is in bwrap's environment, its argv or
  the sandbox's mounts. bwrap builds an empty root with read-only /usr, unshares every namespace (no network,
  own PIDs, own user namespace mapping the caller to 0), dies with its parent, starts a new session and blocks
  further user namespaces (`--disable-userns`). It keeps CAP_SYS_ADMIN/CAP_SETPCAP inside its own namespace
  for the trusted supervisor only.
* The trusted supervisor (`_SUPERVISOR`, bash) runs in a fresh mount namespace: it mounts /memory, /scratch
  and /tmp as tmpfs with size *and* inode caps, unpacks the store copy into /memory from a memfd the host
  wrote (fd 4; the copy never exists as a host folder), then starts the command in a further PID and mount
  namespace, with /memory remounted read-only (search harness), every capability and the bounding set
  dropped, `no_new_privs`, a clean environment, and neither fd 3 nor fd 4. The command's /proc shows only
  its own PID namespace, so it can reach neither the supervisor nor its descriptors.
* When the command's PID namespace is gone (every process it started has exited), the supervisor packs
  /memory (writable mode) into fd 3, a pipe only it holds, and ends the stream with `TAILMEM-END <exit>`.
  The host parses that archive only after bwrap has exited (`tailmem.fsmem.tools.shell.read_tree`), with
  every size checked before anything is read.

Totals: the sandbox joins a fresh cgroup with one memory cap and one process cap when a writable cgroup
hierarchy exists (v2, else v1 memory+pids; usually only as root). Otherwise the limits are rlimits: the
process count (RLIMIT_NPROC, per user id) and the address space per process (RLIMIT_AS), so memory is bounded
by max_processes x max_memory_bytes plus the tmpfs sizes, not by one total; `Sandbox.describe()` says which.

Without bubblewrap the harness refuses to start; `Limits.allow_unsafe_fallback` (config
`fsmem.sandbox.allow_unsafe_fallback`) opts in to a bare `unshare` that isolates only the network and PIDs.
"""

from __future__ import annotations

import fcntl
import functools
import io
import os
import resource
import selectors
import shutil
import signal
import subprocess
import tarfile
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path

from tailmem.fsmem.errors import FsmemError

NOBODY = 65534
HOST_ENV = {"PATH": "/usr/bin:/bin"}  # the whole environment bwrap is started with
INNER_ENV = ["PATH=/usr/bin:/bin", "HOME=/scratch", "TMPDIR=/tmp", "LC_ALL=C.UTF-8"]  # the command's
END = b"TAILMEM-END "  # the supervisor's last line on fd 3: the command's exit code
INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap; Fedora: dnf install bubblewrap)"
# Debian's merged /usr: the top-level folders are symlinks into /usr; non-merged systems get the real folders.
_LIBS = [
    arg
    for name in ("bin", "lib", "lib64", "sbin")
    if os.path.exists(f"/{name}")
    for arg in (
        ("--symlink", f"usr/{name}", f"/{name}")
        if os.path.islink(f"/{name}")
        else ("--ro-bind", f"/{name}", f"/{name}")
    )
]


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0  # the command, and the supervisor's packing of /memory
    sync_timeout_s: float = 10.0  # the host-side read-back and sync after it (Shell build harness)
    max_output_chars: int = 16_000
    max_processes: int = 64  # whole sandbox (cgroup pids.max), else RLIMIT_NPROC
    max_file_bytes: int = 8 * 1024 * 1024
    max_memory_bytes: int = 1024 * 1024 * 1024  # whole sandbox (cgroup), else RLIMIT_AS of each process
    cpu_s: int = 20
    scratch_bytes: int = 64 * 1024 * 1024  # /scratch and /tmp, each
    memory_bytes: int = 64 * 1024 * 1024  # /memory
    max_inodes: int = 20_000  # files + folders in each of /memory, /scratch and /tmp
    allow_unsafe_fallback: bool = False  # without bwrap, run under bare `unshare` (no tree isolation)


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    output: str
    timed_out: bool
    truncated: bool
    tree: bytes | None = None  # writable mode: tar archive of /memory after the command; None if it was killed
    failure: str | None = None  # why the sandbox itself (not the command) failed, if it did


# The trusted supervisor: $1 = command, $2 = "ro" | "rw", $3 $4 = tmpfs options for /memory and /scratch, /tmp,
# $5 $6 = the host's descriptors of the tree pipe and the seed memfd (moved to 3 and 4).
_SUPERVISOR = r"""
exec 2>/dev/null 3>&"$5" 4<&"$6"; T=$5 S=$6; exec {T}>&- {S}<&-
mount -t tmpfs -o "nosuid,nodev,$3" tailmem /memory && mount -t tmpfs -o "nosuid,nodev,$4" tailmem /scratch \
  && mount -t tmpfs -o "nosuid,nodev,$4" tailmem /tmp || { echo "tailmem sandbox: mounting the tmpfs caps failed" >&3; exit 125; }
chmod 1777 /scratch /tmp
tar -x -C /memory --no-same-owner -f - <&4 || { echo "tailmem sandbox: unpacking the store copy failed" >&3; exit 125; }
exec 4<&-
unshare --mount --pid --fork --kill-child --mount-proc -- /bin/sh -c '
  for m in / /dev; do mount -o remount,bind,ro "$m" || exit 125; done
  if [ "$2" = ro ]; then mount -o remount,bind,ro,nosuid,nodev /memory || exit 125; fi
  cd /memory || exit 125
  exec setpriv --bounding-set=-all --inh-caps=-all --ambient-caps=-all --no-new-privs -- \
    env -i '"${INNER_ENV}"' bash --noprofile --norc -c "$1" 2>&1' tailmem-command "$1" "$2" 3>&- 2>&1
code=$?
if [ "$2" = rw ]; then
  chmod -R u+rwX /memory
  tar -C /memory --hard-dereference --format=gnu -cf - . >&3 || { echo "tailmem sandbox: packing failed" >&3; exit 125; }
fi
printf 'TAILMEM-END %d\n' "$code" >&3
exit 0
""".replace("${INNER_ENV}", " ".join(INNER_ENV))


class _Cgroup:
    """A fresh cgroup holding one sandbox: one memory cap and one process cap over everything it runs.

    cgroup v2 (a child of our own cgroup, when `memory` and `pids` are delegated to it) or v1 (the memory
    and pids hierarchies). `create` returns None when neither is writable here; the caller falls back to
    rlimits and says so."""

    def __init__(self, dirs: list[Path], version: int):
        self.dirs, self.version = dirs, version

    @classmethod
    def create(cls, limits: Limits) -> _Cgroup | None:
        name = f"tailmem-sandbox-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        for make in (cls._v2, cls._v1):
            made: list[Path] = []
            try:
                group = make(name, limits, made)
                if group is not None:
                    return group
            except OSError:
                pass
            for d in reversed(made):
                try:
                    d.rmdir()
                except OSError:
                    pass
        return None

    @staticmethod
    def _own(controller: str) -> str | None:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            if controller in ctrls.split(","):
                return path
        return None

    @classmethod
    def _v2(cls, name: str, limits: Limits, made: list[Path]) -> _Cgroup | None:
        root = Path("/sys/fs/cgroup")
        if not (root / "cgroup.controllers").exists():
            return None
        own = cls._own("")
        if own is None:
            return None
        parent = root / own.lstrip("/")
        if not {"memory", "pids"} <= set((parent / "cgroup.subtree_control").read_text().split()):
            return None
        d = parent / name
        d.mkdir()
        made.append(d)
        (d / "memory.max").write_text(str(limits.max_memory_bytes))
        if (d / "memory.swap.max").exists():
            (d / "memory.swap.max").write_text("0")
        (d / "pids.max").write_text(str(limits.max_processes))
        return cls([d], 2)

    @classmethod
    def _v1(cls, name: str, limits: Limits, made: list[Path]) -> _Cgroup | None:
        mem_own, pid_own = cls._own("memory"), cls._own("pids")
        if mem_own is None or pid_own is None:
            return None
        mem = Path("/sys/fs/cgroup/memory") / mem_own.lstrip("/") / name
        pids = Path("/sys/fs/cgroup/pids") / pid_own.lstrip("/") / name
        mem.mkdir()
        made.append(mem)
        pids.mkdir()
        made.append(pids)
        (mem / "memory.limit_in_bytes").write_text(str(limits.max_memory_bytes))
        if (mem / "memory.memsw.limit_in_bytes").exists():
            (mem / "memory.memsw.limit_in_bytes").write_text(str(limits.max_memory_bytes))
        (pids / "pids.max").write_text(str(limits.max_processes))
        return cls([mem, pids], 1)

    def join(self) -> None:
        """Move the calling process (the child before it execs bwrap) into the cgroup."""
        for d in self.dirs:
            with open(d / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(50):  # a torn-down PID namespace leaves the cgroup a moment later
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def _bwrap_argv(mode: str, limits: Limits, command: str, tree_fd: int, seed_fd: int) -> list[str]:
    """The whole argv: no host path but /usr (and its merged-/usr links) appears in it."""
    mem = f"size={limits.memory_bytes},nr_inodes={limits.max_inodes},mode=0755"
    scratch = f"size={limits.scratch_bytes},nr_inodes={limits.max_inodes},mode=1777"
    return [
        "bwrap",
        "--ro-bind",
        "/usr",
        "/usr",
        *_LIBS,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--dir",
        "/memory",
        "--dir",
        "/scratch",
        "--dir",
        "/tmp",
        "--unshare-all",
        "--unshare-user",
        "--uid",
        "0",
        "--gid",
        "0",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--cap-add",
        "CAP_SYS_ADMIN",
        "--cap-add",
        "CAP_SETPCAP",
        "--clearenv",
        "--setenv",
        "PATH",
        "/usr/bin:/bin",
        "--chdir",
        "/",
        "unshare",
        "--mount",
        "--",
        "bash",
        "--noprofile",
        "--norc",
        "-c",
        _SUPERVISOR,
        "tailmem-supervisor",
        command,
        mode,
        mem,
        scratch,
        str(tree_fd),
        str(seed_fd),
    ]


def _probe_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        info = tarfile.TarInfo("probe.md")
        tf.addfile(info, io.BytesIO(b""))
    return buf.getvalue()


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """None when the full bubblewrap sandbox works here, else why not (cached: probed once per process)."""
    if not shutil.which("bwrap"):
        return "bwrap is not on PATH"
    for tool in ("unshare", "setpriv", "mount", "tar"):
        if not shutil.which(tool):
            return f"{tool} (util-linux / tar) is not on PATH"
    try:
        r = _launch("true", "rw", Limits(timeout_s=10), _probe_tar(), None)
    except OSError as exc:
        return f"bwrap could not start ({exc})"
    if r.failure or r.exit_code != 0 or r.tree is None or b"probe.md" not in r.tree:
        return f"bwrap could not build the sandbox ({(r.failure or r.output).strip()[:300]})"
    return None


def available() -> str | None:
    """'bwrap' when the bubblewrap sandbox works here, 'unshare' when only the unsafe fallback could, else None."""
    if bwrap_problem() is None:
        return "bwrap"
    if (
        shutil.which("unshare")
        and subprocess.run(["unshare", "-rn", "true"], capture_output=True, env=HOST_ENV).returncode == 0
    ):
        return "unshare"
    return None


def _set_limits(limits: Limits, cgroup: _Cgroup | None) -> None:
    """In the child before exec: join the cgroup, set the rlimits, and drop root to nobody."""
    if cgroup is not None:
        cgroup.join()
    nproc = limits.max_processes if cgroup is None else max(limits.max_processes, 4096)
    for res, value in (
        (resource.RLIMIT_NPROC, nproc),
        (resource.RLIMIT_FSIZE, limits.max_file_bytes),
        (resource.RLIMIT_CPU, limits.cpu_s),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(res, (value, value))
    if cgroup is None:
        resource.setrlimit(resource.RLIMIT_AS, (limits.max_memory_bytes, limits.max_memory_bytes))
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def _launch(command: str, mode: str, limits: Limits, seed: bytes, cgroup: _Cgroup | None) -> RunResult:
    """Start the sandbox; read its output (capped) and fd 3 (capped) until it exits or the deadline passes."""
    seed_fd = os.memfd_create("tailmem-seed", os.MFD_CLOEXEC)
    _write_all(seed_fd, seed)
    os.lseek(seed_fd, 0, os.SEEK_SET)
    tree_r, tree_w = os.pipe()
    # numbers >= 10, so the supervisor's `exec 3>&N 4<&M` never lands on one of them
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (tree_w, seed_fd)]
    os.close(tree_w)
    os.close(seed_fd)
    try:
        proc = subprocess.Popen(
            _bwrap_argv(mode, limits, command, *high),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: _set_limits(limits, cgroup),
            start_new_session=True,
            cwd="/",
            env=HOST_ENV,
            pass_fds=tuple(high),
        )
    finally:
        for fd in high:
            os.close(fd)
    return _collect(proc, tree_r, limits)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _collect(proc: subprocess.Popen, tree_r: int | None, limits: Limits) -> RunResult:
    cap = limits.max_output_chars
    tree_cap = limits.memory_bytes + 2048 * (limits.max_inodes + 16) + (1 << 20)  # data + headers + slack
    deadline = time.monotonic() + limits.timeout_s
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
                    overflow = tree_size > tree_cap
                if truncated or overflow:
                    break
    if timed_out or truncated or overflow:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # bwrap dies; --die-with-parent takes the namespaces down
        except ProcessLookupError:
            pass
    proc.stdout.close()
    if tree_r is not None:
        os.close(tree_r)
    proc.wait()
    text = b"".join(chunks).decode("utf-8", errors="replace")
    truncated = truncated or len(text) > cap
    stream = b"".join(tree)
    code, archive, failure = -1, None, None
    if not (timed_out or truncated or overflow):
        cut = stream.rfind(END)  # only the supervisor writes fd 3; a tar stream ends in NUL padding
        tail = stream[cut:] if cut >= 0 else b""
        if tail.endswith(b"\n") and tail[len(END) : -1].isdigit():
            code, archive = int(tail[len(END) : -1]), stream[:cut]
        else:
            failure = (
                stream[-300:].decode("utf-8", "replace").strip()
                or f"the sandbox ended (exit {proc.returncode}) without reporting the command's exit code"
            )
    elif overflow:
        failure = f"the tree archive passed {tree_cap} bytes"
    return RunResult(code, text[:cap], timed_out, truncated, archive, failure)


class Sandbox:
    """One isolated copy of a store plus scratch space; `run` executes bash commands over them."""

    def __init__(self, store_root: str | os.PathLike, limits: Limits = Limits(), writable: bool = False):
        problem = bwrap_problem()
        self.limits = limits
        self.writable = writable
        if problem is None:
            self.kind = "bwrap"
        elif limits.allow_unsafe_fallback and not writable and available() == "unshare":
            self.kind = "unshare"
        else:
            raise FsmemError(
                f"Shell harness: the bubblewrap sandbox is not available here ({problem}); {INSTALL}. "
                "Set fsmem.sandbox.allow_unsafe_fallback=true only to run the read-only search harness under a "
                "bare `unshare`, which lets the command read the host's files and environment"
                + ("; the Shell build harness never falls back" if writable else "")
            )
        self.cgroup = _Cgroup.create(limits) if self.kind == "bwrap" else None
        if self.cgroup is not None:  # removed even if the harness is never closed
            self._finalizer = weakref.finalize(self, self.cgroup.remove)
        self.seed = b""
        self.root = Path(store_root)
        self.reseed(store_root)

    def describe(self) -> dict:
        """What isolated the runs, for provenance: the sandbox kind and which limits are totals."""
        lim = self.limits
        if self.kind != "bwrap":
            return {"sandbox": "unshare (unsafe fallback: host files and environment readable)"}
        if self.cgroup is not None:
            total = f"cgroup v{self.cgroup.version}: {lim.max_memory_bytes} bytes and {lim.max_processes} processes in total"
        else:
            total = (
                f"rlimits: {lim.max_processes} processes per user id (RLIMIT_NPROC), {lim.max_memory_bytes} "
                "bytes of address space per process (RLIMIT_AS); no single memory total"
            )
        return {
            "sandbox": "bwrap",
            "caps": total,
            "tmpfs": f"/memory {lim.memory_bytes} bytes, /scratch and /tmp {lim.scratch_bytes} bytes each, "
            f"{lim.max_inodes} inodes each",
        }

    def reseed(self, store_root: str | os.PathLike) -> None:
        """Take the store as it is now as the copy every later command starts from: its folders and regular
        files, never symlinks or hidden names (packed in memory; no host folder is ever shared)."""
        self.root = Path(store_root)
        self.seed = seed_archive(self.root)

    def reseed_from(self, files: dict[str, bytes], folders: set[str]) -> None:
        """`reseed` from the store's content already in memory (after a sync): no second read of the store."""
        self.seed = pack(files, folders)

    def mirror(self, store_root: str | os.PathLike, paths: list[str]) -> None:
        """Bring the copy up to date after a sync (the packed copy is rebuilt whole: it is cheap)."""
        self.reseed(store_root)

    def run(self, command: str) -> RunResult:
        """Run with a wall-clock limit; output past the cap stops being read and the command is killed.
        Writable mode also returns the archive of /memory, packed after the command's namespace is gone."""
        if self.kind == "unshare":
            return self._run_unshare(command)
        mode = "rw" if self.writable else "ro"
        r = _launch(command, mode, self.limits, self.seed, self.cgroup)
        return r if self.writable else RunResult(r.exit_code, r.output, r.timed_out, r.truncated, None, r.failure)

    def _run_unshare(self, command: str) -> RunResult:
        """The opted-in unsafe fallback: network and PIDs isolated, the filesystem and user are the host's."""
        argv = [
            "unshare",
            "--user",
            "--map-root-user",
            "--net",
            "--pid",
            "--fork",
            "--kill-child",
            "bash",
            "--noprofile",
            "--norc",
            "-c",
            command,
        ]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=str(self.root),
            env=HOST_ENV,
        )
        r = _collect(proc, None, self.limits)
        return RunResult(proc.returncode, r.output, r.timed_out, r.truncated, None, None)

    def close(self) -> None:
        if self.cgroup is not None:
            self._finalizer()
            self.cgroup = None


def provenance(limits: Limits) -> dict:
    """What a Shell harness with these limits runs under on this machine, for build provenance (the search
    harness records its own `describe()`); {"sandbox": None, "error": ...} when it would refuse to start."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tailmem-probe-") as empty:
        try:
            sb = Sandbox(empty, limits, writable=True)
        except FsmemError as exc:
            return {"sandbox": None, "error": str(exc)}
        try:
            return sb.describe()
        finally:
            sb.close()


def seed_archive(root: Path) -> bytes:
    """A tar of the store's visible tree (folders and regular files; hidden names and symlinks left out)."""
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not os.path.islink(os.path.join(dirpath, d))]
        rel = os.path.relpath(dirpath, root)
        if rel != ".":
            folders.add(rel.replace(os.sep, "/"))
        for name in filenames:
            full = os.path.join(dirpath, name)
            if name.startswith(".") or os.path.islink(full) or not os.path.isfile(full):
                continue
            with open(full, "rb") as f:
                files[os.path.normpath(os.path.join(rel, name)).replace(os.sep, "/")] = f.read()
    return pack(files, folders)


def pack(files: dict[str, bytes], folders: set[str]) -> bytes:
    """A tar of folders (0755) and files (0644), parents before children, in sorted order."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for d in sorted(folders):
            info = tarfile.TarInfo(d)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tf.addfile(info)
        for path in sorted(files):
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(files[path]), 0o644
            tf.addfile(info, io.BytesIO(files[path]))
    return buf.getvalue()
