"""Warm start for Snakemake jobs: one warm process per machine forks a fresh child for every stage job.

Why: a DAG runs ~150 short jobs, and each paid 2-4 s before its own work (interpreter, numpy/scipy/pandas/
powerlaw/hydra imports) - more than half of the smoke DAG's job time. The rules run `python -m tailmem.warmstart
<stage> overrides...` (the client, stdlib only). It hands its argv, working folder, environment and its stdin/
stdout/stderr (SCM_RIGHTS) to the server over a Unix socket; the server, which imports the heavy libraries and
every stage module once (between jobs, in the order a DAG needs them), forks a child that runs `tailmem.cli.main`
exactly as `python -m tailmem` would, writing straight into the job's log, and returns the child's exit status.
Each job is still its own process, its own Snakemake job and its own log, so reruns stay as precise as before;
only the imports are shared (copy-on-write).

Safety rules: the server is single-threaded (forking a threaded process can deadlock the child) and never runs a
stage itself (between jobs it composes the config groups of the jobs it forked, so that later jobs compose from
what it kept: tailmem.compose_cache); a child starts a new process group, killed when its client goes away
(Snakemake killed the job); the socket lives in a 0700 folder of the user and a peer of another uid is refused.
Staleness: the server refuses jobs and exits once any tailmem source file or an import-path folder (a pip
install) changed since it started, and exits after `IDLE_S` seconds without a job.
One server per socket name: it holds `<socket>.lock` while it serves, and a client that finds no socket starts a
server only if nobody holds the lock, then waits a few seconds for it to listen. Whenever the server is absent,
stale or refuses, the client runs the stage in its own process (the cold path, same result).
`TAILMEM_WARMSTART=0` turns the warm path off; inside a SLURM job it is off unless `TAILMEM_WARMSTART=1`.
"""

from __future__ import annotations

import array
import hashlib
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from tailmem.lazy import resolve

IDLE_S = float(os.environ.get("TAILMEM_WARMSTART_IDLE_S", 120))  # the server exits after this long without a job
START_WAIT_S = 5.0  # how long a job waits for a starting server before it runs cold
ENTRY = "tailmem.cli:main"  # what a job runs: fn(argv) -> exit code
LEARN = "tailmem.cli:learn"  # fn(argv): composes a forked job's config groups, for the next jobs (compose_cache)
PACKAGE = Path(__file__).resolve().parent
ENV_SWITCH = "TAILMEM_WARMSTART"
T0_ENV = "TAILMEM_JOB_T0"  # the client's start (epoch s), so a child's startup timing counts the client's too
# The server's first byte: it forked the job (its exit status, 4 bytes, follows when it ends) or will not run it.
FORKED, REFUSED = b"F", b"S"


# -- where the server listens ---------------------------------------------------------------------------------
def socket_path() -> Path:
    """One socket per user, interpreter, checkout and interpreter environment (the PYTHON* variables, e.g.
    PYTHONHASHSEED or PYTHONPATH, which a fork cannot change): `<runtime dir>/tailmem-<uid>/w<key>.sock`, in /tmp
    when the runtime dir's path is too long for a Unix socket name (108 bytes with the server's temporary name)."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp") / f"tailmem-{os.getuid()}"
    if len(str(base)) > 70:
        base = Path("/tmp") / f"tailmem-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    if base.stat().st_uid != os.getuid() or base.stat().st_mode & 0o077:
        raise OSError(f"{base}: not a private folder of this user")
    python_env = sorted((k, v) for k, v in os.environ.items() if k.startswith("PYTHON"))
    key = hashlib.sha256(json.dumps([sys.executable, str(PACKAGE), python_env, list(sys.flags)]).encode())
    return base / f"w{key.hexdigest()[:16]}.sock"


def fingerprint() -> tuple:
    """What the server's imports depend on: every tailmem source file's (path, mtime, size) and the mtime of each
    import-path folder (an install or upgrade adds or replaces entries there)."""
    files = []
    for root, dirs, names in os.walk(PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in names:
            if n.endswith(".py"):
                st = os.stat(os.path.join(root, n))
                files.append((root, n, st.st_mtime_ns, st.st_size))
    folders = []
    here = os.getcwd()
    for p in sys.path:
        if p in ("", ".") or os.path.abspath(p) == here:  # the folder the server started in: jobs write there
            continue
        try:
            folders.append((p, os.stat(p or ".").st_mtime_ns))
        except OSError:
            folders.append((p, None))
    return tuple(sorted(files)), tuple(folders)


# -- the client ---------------------------------------------------------------------------------------------------
def _cold(argv: list[str], entry: str = ENTRY) -> int:
    return int(resolve(entry)(argv) or 0)


def _start_server(path: Path) -> None:
    """A detached server for the next jobs (its own session, so the job's end does not take it down), unless one
    holds the socket's lock. The lock is taken here and handed to the server (a flock belongs to the open file,
    which the server inherits), so two jobs starting at once start one server."""
    lock = _take_lock(path)
    if lock is None:
        return
    log = os.environ.get("TAILMEM_WARMSTART_LOG")  # where the server's own errors go (default: nowhere)
    try:
        with open(log or os.devnull, "ab") as sink:
            subprocess.Popen(
                [sys.executable, "-m", "tailmem.warmstart", "--serve", str(path), str(lock)],
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=sink,
                start_new_session=True,
                pass_fds=(lock,),
            )
    finally:
        os.close(lock)  # the server's copy keeps the lock


def _take_lock(path: Path) -> int | None:
    """The lock on a socket name (held by its server, from before its first import until it retires), or None
    when someone holds it."""
    import fcntl

    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _server_alive(path: Path) -> bool:
    lock = _take_lock(path)
    if lock is None:
        return True
    os.close(lock)
    return False


def _connect(path: Path) -> socket.socket | None:
    """A connection to the server at `path`; with none listening, start one (unless one is starting: a DAG's
    first jobs all find no socket, and each used to start its own ~7 s of imports) and wait while it loads
    its first imports, up to `START_WAIT_S`. None: run cold."""
    deadline = None
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(str(path))
            return conn
        except OSError:
            conn.close()
        if deadline is None:
            _start_server(path)
            deadline = time.monotonic() + START_WAIT_S
        elif time.monotonic() > deadline or not _server_alive(path):
            return None
        time.sleep(0.02)


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        part = conn.recv(n - len(data))
        if not part:
            raise ConnectionError("warm server closed the connection")
        data += part
    return data


def _exit_code(status: int) -> int:
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 1


def client(argv: list[str], entry: str = ENTRY) -> int:
    """Run `python -m tailmem <argv>` (`entry(argv)`) through the warm server, or in this process when there is
    none."""
    if not warm_enabled():
        return _cold(argv, entry)
    t0 = time.time() - _own_age()
    try:
        path = socket_path()
        conn = _connect(path)
    except OSError:
        return _cold(argv, entry)
    if conn is None:
        return _cold(argv, entry)
    with conn:
        request = json.dumps(
            {
                "argv": argv,
                "entry": entry,
                "cwd": os.getcwd(),
                "env": {**os.environ, T0_ENV: repr(t0)},
                "path": sys.path,
            }
        ).encode()
        fds = array.array("i", [0, 1, 2])
        try:
            conn.sendmsg([struct.pack("!I", len(request)), request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        except OSError:
            return _cold(argv, entry)

        def stop(signum, _frame):  # Snakemake cancels the job: closing the socket makes the server kill the child
            conn.close()
            os._exit(128 + signum)

        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, stop)
        try:
            first = conn.recv(1)
        except OSError:
            first = b""
        if first != FORKED:  # refused (stale code) or gone before forking: nothing ran, so run it here
            if first == REFUSED:
                _try_start()  # a server of the new code, for the next jobs
            return _cold(argv, entry)
        try:
            status = struct.unpack("!i", _recv_exact(conn, 4))[0]
        except (OSError, ConnectionError):  # the job started: never run it a second time beside it
            print("tailmem: the warm server went away while this job ran; run it again", file=sys.stderr)
            return 1
    return _exit_code(status)


def warm_enabled() -> bool:
    """Off with TAILMEM_WARMSTART=0, and inside a SLURM job unless TAILMEM_WARMSTART=1: there a server would
    count against the job's memory limit and outlive nothing (the step's end kills it)."""
    switch = os.environ.get(ENV_SWITCH, "")
    if switch in ("0", "1"):
        return switch == "1"
    return "SLURM_JOB_ID" not in os.environ


def _try_start() -> None:
    try:
        _start_server(socket_path())
    except OSError:
        pass


def _own_age() -> float:
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0.0


# -- the server ---------------------------------------------------------------------------------------------------
def preload_order() -> list[str]:
    """What the stages import, in the order a DAG first needs it: the graph world's libraries first, TextWorld
    last. The server listens once `tailmem.cli` is in (about 0.4 s) and imports the rest between jobs (about
    6 s in all), so the first jobs wait for no import they do not use."""
    from tailmem.registry import STAGES

    first = (
        "numpy",
        "networkx",
        "tailmem.studies.random_walk.graphworld",
        "tailmem.studies.random_walk.rollout",
        "tailmem.rollout.run:load_kernel",
        "scipy.stats",
        "powerlaw",
        "tailmem.studies.random_walk.audit",
        "pandas",
        "matplotlib.pyplot",
        "tailmem.validation",
        "tailmem.cli:warm_up",
        "tailmem.llm.tokens:get_encoding",
    )  # tiktoken's o200k table: 1.3 s in every job that counts tokens
    stages = sorted({s.module for s in STAGES.values()})
    last = ("textworld", "textworld.gym", "fast_downward", "alfworld.agents.environment.alfred_tw_env")
    return list(
        dict.fromkeys(
            (*first, *[m for m in stages if "alfworld" not in m], *last, *[m for m in stages if "alfworld" in m])
        )
    )


def preload_core() -> None:
    """The job entry point itself (Hydra, OmegaConf); matplotlib's backend before anything imports pyplot."""
    import matplotlib

    matplotlib.use("Agg")
    from tailmem import cli  # noqa: F401


def preload_one(name: str, *args) -> None:
    """Import `module`, or for `module:function` also call the function (a cached loader) once, with `args`."""
    try:
        loaded = resolve(name)
        if ":" in name:
            loaded(*args)
    except Exception:  # noqa: BLE001 - an optional extra missing: its stage imports cold
        pass


def _child(request: dict, fds: list[int], inherited: list[socket.socket], lock: int) -> None:
    """In the forked child: become the job (its fds, folder, environment, import path, argv), run it, exit with
    its code. The std streams keep their objects: after dup2 they write to the job's own files."""
    code = 1
    try:
        os.setpgid(0, 0)
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(s, signal.SIG_DFL)
        for sock in inherited:  # the listener and every client connection: not this job's
            sock.close()
        if lock >= 0:  # nor the server's lock (a long job would keep it held after the server is gone)
            os.close(lock)
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
        for fd in fds:
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[:] = request["path"]
        sys.argv = ["tailmem", *request["argv"]]
        code = int(resolve(request.get("entry", ENTRY))(request["argv"]) or 0)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - report like an uncaught exception in a cold run
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    msg, anc, _, _ = conn.recvmsg(4, socket.CMSG_LEN(3 * fds.itemsize))
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    if len(msg) < 4:
        msg += _recv_exact(conn, 4 - len(msg))
    body = _recv_exact(conn, struct.unpack("!I", msg)[0])
    return json.loads(body), list(fds)


class _Server:
    """The listening socket, the running children and whether the code changed since the start."""

    def __init__(self, path: Path, lock: int):
        self.path = path
        self.lock = lock
        self.stamp = fingerprint()
        self.stale = False
        self.running: dict[int, socket.socket] = {}  # child pid -> its client's connection
        self.to_learn: list[list[str]] = []  # forked jobs' argv whose config the server composes between jobs
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        fresh = f"{path}.{os.getpid()}"
        self.listener.bind(fresh)
        os.chmod(fresh, 0o600)
        self.listener.listen(64)
        self.inode = os.stat(fresh).st_ino
        os.replace(fresh, path)  # atomically: a client never sees a socket nobody listens on
        self.sel.register(self.listener, selectors.EVENT_READ)

    def retire(self) -> None:
        """Stop taking jobs (the running ones finish), and free the socket name if it is still ours."""
        if self.listener.fileno() >= 0:
            self.sel.unregister(self.listener)
            self.listener.close()
        try:
            if os.stat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass
        if self.lock >= 0:  # a server of newer code may start while this one's jobs finish
            os.close(self.lock)
            self.lock = -1

    def accept(self) -> None:
        conn, _ = self.listener.accept()
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", creds)
        try:
            request, fds = _read_request(conn)
        except (OSError, ValueError, ConnectionError):
            conn.close()
            return
        if not self.stale and fingerprint() != self.stamp:
            self.stale = True  # answer this job and every later one `stale`: they run cold with the new code
        if uid != os.getuid() or self.stale or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            if self.stale:
                self.retire()  # before answering: the refused client starts a server of the new code
            try:
                conn.sendall(REFUSED)
            except OSError:
                pass
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            _child(request, fds, [self.listener, conn, *self.running.values()], self.lock)
        for fd in fds:
            os.close(fd)
        self.running[pid] = conn
        same_configs = request["env"].get("TAILMEM_CONFIGS") == os.environ.get("TAILMEM_CONFIGS")
        if request.get("entry", ENTRY) == ENTRY and same_configs:
            self.to_learn.append(request["argv"])
        self.sel.register(conn, selectors.EVENT_READ, pid)
        try:
            conn.sendall(FORKED)
        except OSError:  # the client is gone already: stop the job
            _kill(pid)


def serve(path: Path, lock: int | None = None) -> None:
    """Listen on `path` until idle or stale; fork one child per request (see the module docstring). `lock`: the
    socket's lock, taken by the client that started this server."""
    lock = _take_lock(path) if lock is None else lock
    if lock is None:
        return  # another server is starting or serving
    preload_core()
    try:
        server = _Server(path, lock)
    except OSError:
        return
    print(f"tailmem warm server {os.getpid()}: listening on {path}", file=sys.stderr, flush=True)
    pending = preload_order()
    sel, running = server.sel, server.running
    last = time.monotonic()
    try:
        while running or not server.stale:
            events = sel.select(timeout=0 if pending or server.to_learn else 0.05)
            for key, _ in events:
                if key.fileobj is server.listener:
                    server.accept()
                    last = time.monotonic()
                else:  # a client went away (or wrote after its request): stop its child
                    pid = key.data
                    _kill(pid)
                    sel.unregister(key.fileobj)
            while running:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                conn = running.pop(pid, None)
                if conn is not None:
                    try:
                        sel.unregister(conn)
                    except (KeyError, ValueError):
                        pass
                    try:
                        conn.sendall(struct.pack("!i", status))
                    except OSError:
                        pass
                    conn.close()
                last = time.monotonic()
            if server.stale:
                pending.clear()  # no more jobs will come: only the running ones finish
                server.to_learn.clear()
            elif server.to_learn and not events:  # nothing to answer: compose a job's groups for the next jobs
                preload_one(LEARN, server.to_learn.pop(0))
                last = time.monotonic()
            elif pending and not events:  # nothing to answer: one more import for the next jobs
                preload_one(pending.pop(0))
                last = time.monotonic()
            if not running and time.monotonic() - last > IDLE_S:
                break
    finally:
        server.retire()


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except OSError:
        pass


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        serve(Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        sys.exit(client(sys.argv[1:]))
