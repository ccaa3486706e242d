"""A single-node SLURM cluster with accounting, for the tests of the cluster path: munged, MariaDB, slurmdbd,
slurmctld and slurmd from Debian's packages, started in a scratch folder and stopped again.

Accounting is not optional: snakemake-executor-plugin-slurm polls job status with `sacct`, which answers only
through slurmdbd. `slurm.conf` goes to /etc/slurm/ because the job's own `srun` step reads it there, not from the
submitting shell's SLURM_CONF. Every daemon listens on 127.0.0.1 on a free port; `stop()` ends only the processes
`start()` began (by their Popen handles) and removes the config files it wrote.
(A module, not a conftest helper: `from conftest import ...` is ambiguous once several test folders have one.)
"""

from __future__ import annotations

import getpass
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PACKAGES = ("slurm-wlm", "slurmdbd", "mariadb-server", "munge")
BINARIES = (
    "munged",
    "munge",
    "unmunge",
    "mariadb-install-db",
    "mariadbd",
    "mariadb",
    "slurmdbd",
    "slurmctld",
    "slurmd",
    "sbatch",
    "sacct",
    "sacctmgr",
    "sinfo",
)
CONF_DIR = Path("/etc/slurm")
MARK = "# written by tailmem tests/cluster/slurm_testkit.py: a throw-away single-node test cluster"


def _missing() -> list[str]:
    return [b for b in BINARIES if shutil.which(b) is None]


def _tail(text: str | bytes, n: int = 1500) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    return text[-n:].strip()


def unavailable(install: bool = True) -> str | None:
    """Why a single-node SLURM cannot run here, or None when it can; installs the Debian packages if missing."""
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "the SLURM executor plugin is the `cluster` extra: pip install -e '.[cluster]' (.ci/slurm does)"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "starting SLURM daemons (munged, slurmdbd, slurmctld, slurmd) needs root"
    if _missing() and install and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for cmd in (
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
        ):
            done = subprocess.run(cmd, capture_output=True, env=env, timeout=900)
            if done.returncode != 0:
                return f"`{' '.join(cmd)}` failed: {_tail(done.stderr or done.stdout, 600)}"
    if missing := _missing():
        return f"SLURM test cluster needs {', '.join(missing)} (Debian: apt-get install {' '.join(PACKAGES)})"
    for name in ("slurm.conf", "slurmdbd.conf"):
        conf = CONF_DIR / name
        if conf.exists() and MARK not in conf.read_text(errors="replace")[:400]:
            return f"{conf} exists and was not written by this test kit: refusing to overwrite a real cluster's config"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, check, timeout: float, log: Path | None = None) -> None:
    """Poll `check()` until it is true; on timeout raise naming `what` and the tail of its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.25)
    tail = _tail(log.read_text(errors="replace")) if log and log.exists() else "(no log)"
    raise RuntimeError(f"{what} did not come up within {timeout:.0f} s; log {log}:\n{tail}")


def _ok(*cmd: str, **kw) -> bool:
    return subprocess.run(cmd, capture_output=True, timeout=30, **kw).returncode == 0


class SingleNodeSlurm:
    """One node (this host, all its CPUs, 90% of its memory), one partition, one account for the current user."""

    def __init__(self, account: str = "tailmem_ci", partition: str = "main", cluster: str = "tailmem"):
        self.account, self.partition, self.cluster = account, partition, cluster
        self.user = getpass.getuser()
        self.node = socket.gethostname().split(".")[0]
        self.cpus = os.cpu_count() or 1
        self.memory_mb = int(_mem_total_mb() * 0.9)
        self.root: Path | None = None
        self.procs: list[tuple[str, subprocess.Popen, Path]] = []
        self.written: list[Path] = []

    # -- lifecycle --------------------------------------------------------------------------------------------
    def __enter__(self) -> "SingleNodeSlurm":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        # short path: MariaDB's socket path must fit in 108 bytes
        self.root = Path(tempfile.mkdtemp(prefix="tailmem-slurm-"))
        for d in ("db", "run", "log", "spool", "state"):
            (self.root / d).mkdir()
        ports = {k: free_port() for k in ("mysql", "ctld", "slurmd", "dbd")}
        self._munge()
        password = secrets.token_hex(12)
        self._mariadb(ports["mysql"], password)
        self._write(CONF_DIR / "slurmdbd.conf", self._slurmdbd_conf(ports, password), mode=0o600)
        self._write(CONF_DIR / "slurm.conf", self._slurm_conf(ports))
        dbd_log = self._spawn("slurmdbd", ["slurmdbd", "-D"])
        wait_for("slurmdbd", lambda: _ok("sacctmgr", "-n", "list", "cluster"), 60, dbd_log)
        for args in (
            ["add", "cluster", self.cluster],
            ["add", "account", self.account, "Description=tailmem tests", "Organization=tailmem"],
            ["add", "user", self.user, f"Account={self.account}", f"DefaultAccount={self.account}"],
        ):
            done = subprocess.run(["sacctmgr", "-i", *args], capture_output=True, timeout=60)
            if done.returncode != 0:
                raise RuntimeError(f"sacctmgr {' '.join(args)} failed: {_tail(done.stderr or done.stdout)}")
        ctld_log = self._spawn("slurmctld", ["slurmctld", "-D", "-i"])
        wait_for("slurmctld", lambda: _ok("scontrol", "ping"), 60, ctld_log)
        slurmd_log = self._spawn("slurmd", ["slurmd", "-D", "-N", self.node])
        wait_for(f"slurmd (node {self.node} idle)", self._idle, 60, slurmd_log)

    def stop(self) -> None:
        """Cancel this cluster's jobs, end the daemons this object started, newest first (SIGTERM, then SIGKILL
        after 20 s), and remove its files."""
        if any(name == "slurmctld" and proc.poll() is None for name, proc, _ in self.procs):
            subprocess.run(["scancel", "--user", self.user], capture_output=True, timeout=30)
        for name, proc, _ in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)
        self.procs.clear()
        for path in self.written:
            path.unlink(missing_ok=True)
        self.written.clear()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def jobs(self, since: str) -> list[dict]:
        """This account's jobs submitted at or after `since` (sacct's YYYY-MM-DDTHH:MM:SS): id, comment, state,
        elapsed seconds and the batch step's peak memory in MB (sampled by jobacct_gather every second)."""
        done = subprocess.run(
            [
                "sacct",
                "-a",
                "-A",
                self.account,
                "-S",
                since,
                "-n",
                "-P",
                "-o",
                "JobID,Comment%200,State,ElapsedRaw,MaxRSS",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0:
            raise RuntimeError(f"sacct failed: {_tail(done.stderr)}")
        jobs: dict[str, dict] = {}
        for line in done.stdout.splitlines():
            jid, comment, state, elapsed, rss = line.split("|")
            base, _, step = jid.partition(".")
            if not step:
                jobs[base] = {
                    "id": base,
                    "comment": comment,
                    "state": state.split()[0],
                    "elapsed_s": int(elapsed or 0),
                    "max_rss_mb": 0.0,
                }
            elif step == "batch" and base in jobs:
                jobs[base]["max_rss_mb"] = _mb(rss)
        return list(jobs.values())

    def log(self, name: str) -> str:
        """The tail of one daemon's log (for assertion messages)."""
        for n, _, path in self.procs:
            if n == name and path.exists():
                return _tail(path.read_text(errors="replace"), 3000)
        return f"(no log for {name})"

    # -- the pieces -------------------------------------------------------------------------------------------
    def _spawn(self, name: str, cmd: list[str], **kw) -> Path:
        log = self.root / "log" / f"{name}.log"
        with open(log, "ab") as fh:
            proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kw)
        self.procs.append((name, proc, log))
        time.sleep(0.2)
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited at once ({proc.returncode}): {_tail(log.read_text(errors='replace'))}")
        return log

    def _write(self, path: Path, text: str, mode: int = 0o644) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{MARK}\n{text}")
        path.chmod(mode)
        self.written.append(path)

    def _munge(self) -> None:
        """Reuse a running munged (its socket answers), else start one as the `munge` user."""
        if _munge_works():
            return
        run = Path("/run/munge")
        run.mkdir(parents=True, exist_ok=True)
        for d in (run, Path("/var/lib/munge"), Path("/var/log/munge")):
            d.mkdir(parents=True, exist_ok=True)
            shutil.chown(d, "munge", "munge")
        run.chmod(0o755)
        log = self._spawn("munged", ["munged", "--foreground"], user="munge", group="munge")
        wait_for("munged", _munge_works, 30, log)

    def _mariadb(self, port: int, password: str) -> None:
        db, sock = self.root / "db", self.root / "run" / "mysql.sock"
        done = subprocess.run(
            [
                "mariadb-install-db",
                "--no-defaults",
                f"--datadir={db}",
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            capture_output=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed: {_tail(done.stdout + done.stderr)}")
        log = self._spawn(
            "mariadbd",
            [
                "mariadbd",
                "--no-defaults",
                "--user=root",
                f"--datadir={db}",
                f"--socket={sock}",
                f"--port={port}",
                "--bind-address=127.0.0.1",
                f"--pid-file={self.root / 'run' / 'mysql.pid'}",
                "--skip-log-bin",
                "--innodb-buffer-pool-size=256M",
                "--innodb-lock-wait-timeout=900",
            ],
        )
        client = ["mariadb", "--no-defaults", f"--socket={sock}", "-uroot"]
        wait_for("mariadbd", lambda: _ok(*client, "-e", "SELECT 1"), 60, log)
        grants = " ".join(
            f"CREATE USER 'slurm'@'{h}' IDENTIFIED BY '{password}'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'{h}';"
            for h in ("127.0.0.1", "localhost")
        )
        done = subprocess.run([*client, "-e", grants], capture_output=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"creating the slurm database user failed: {_tail(done.stderr)}")

    def _slurmdbd_conf(self, ports: dict, password: str) -> str:
        r = self.root
        return "\n".join(
            [
                "AuthType=auth/munge",
                "DbdHost=localhost",
                "DbdAddr=127.0.0.1",
                f"DbdPort={ports['dbd']}",
                f"SlurmUser={self.user}",
                f"LogFile={r}/log/slurmdbd.file.log",
                f"PidFile={r}/run/slurmdbd.pid",
                "StorageType=accounting_storage/mysql",
                "StorageHost=127.0.0.1",
                f"StoragePort={ports['mysql']}",
                "StorageUser=slurm",
                f"StoragePass={password}",
                "StorageLoc=slurm_acct_db",
                "",
            ]
        )

    def _slurm_conf(self, ports: dict) -> str:
        r = self.root
        return "\n".join(
            [
                f"ClusterName={self.cluster}",
                f"SlurmctldHost={self.node}(127.0.0.1)",
                f"SlurmctldPort={ports['ctld']}",
                f"SlurmdPort={ports['slurmd']}",
                f"SlurmUser={self.user}",
                "AuthType=auth/munge",
                f"StateSaveLocation={r}/state",
                f"SlurmdSpoolDir={r}/spool",
                f"SlurmctldPidFile={r}/run/slurmctld.pid",
                f"SlurmdPidFile={r}/run/slurmd.pid",
                f"SlurmctldLogFile={r}/log/slurmctld.file.log",
                f"SlurmdLogFile={r}/log/slurmd.file.log",
                # no cgroups in a container: track processes by /proc, gather each job's peak memory for sacct
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "JobAcctGatherType=jobacct_gather/linux",
                "JobAcctGatherFrequency=1",
                "AccountingStorageType=accounting_storage/slurmdbd",
                "AccountingStorageHost=localhost",
                f"AccountingStoragePort={ports['dbd']}",
                "AccountingStorageEnforce=associations",
                "AccountingStoreFlags=job_comment",  # sacct shows the plugin's --comment (rule or group name)
                "SchedulerType=sched/backfill",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core_Memory",
                "ReturnToService=2",
                "MpiDefault=none",
                "MinJobAge=60",
                f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={self.memory_mb} State=UNKNOWN",
                f"PartitionName={self.partition} Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
                "",
            ]
        )

    def _idle(self) -> bool:
        done = subprocess.run(["sinfo", "-h", "-n", self.node, "-o", "%t"], capture_output=True, text=True, timeout=30)
        return done.returncode == 0 and done.stdout.strip() in ("idle", "mix")


def _munge_works() -> bool:
    try:
        cred = subprocess.run(["munge", "-n"], capture_output=True, timeout=10)
        return cred.returncode == 0 and _ok("unmunge", input=cred.stdout)
    except (OSError, subprocess.TimeoutExpired):
        return False


def _mb(rss: str) -> float:
    """sacct's MaxRSS ('219880K', '1.5G', '') in MB."""
    if not rss:
        return 0.0
    scale = {"K": 1 / 1024, "M": 1.0, "G": 1024.0}.get(rss[-1].upper())
    return float(rss[:-1]) * scale if scale else float(rss) / 2**20


def _mem_total_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise RuntimeError("/proc/meminfo has no MemTotal line")


if __name__ == "__main__":  # a cluster to try the profile by hand: python tests/cluster/slurm_testkit.py
    import sys

    def _quit(signum, frame):
        raise SystemExit(0)

    if why := unavailable():
        sys.exit(why)
    with SingleNodeSlurm() as c:
        signal.signal(signal.SIGTERM, _quit)  # (a background shell job ignores SIGINT)
        signal.signal(signal.SIGINT, _quit)
        print(
            f"SLURM up: export TAILMEM_SLURM_ACCOUNT={c.account} TAILMEM_SLURM_PARTITION={c.partition}; "
            f"SIGINT or SIGTERM to this process stops every daemon",
            flush=True,
        )
        while True:
            signal.pause()
