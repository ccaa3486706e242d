"""One run of the smoke DAG for the whole test session, read by every test that needs a finished smoke run.

The smoke DAG (the scale CI runs end to end, its model slice included) is the longest thing the suite does. The
tests that read it (the end-to-end checks, the rerun-digest dry runs, the hash-seed determinism check) share one
run instead of each running a DAG of its own. pytest-xdist may hand their files to different workers, so the run
is made under a file lock in the session's shared temporary folder (the parent of each worker's basetemp): the
first worker to ask builds it, a second one waits for it, and no run is made twice. A failed run is recorded too,
so every test that reads it fails with the same message instead of starting a run of its own.

It runs under PYTHONHASHSEED 1 (tests/test_determinism.py re-runs jobs of it under another seed) and
SOURCE_DATE_EPOCH 0 (matplotlib writes that as a PDF's creation date instead of the clock).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from artifact_kit import tree_state

HASH_SEED = 1


def env(data_dir: Path, hash_seed: int = HASH_SEED, **extra: str) -> dict[str, str]:
    """The environment of a smoke run (and of a re-run of its jobs under another hash seed)."""
    return {
        **os.environ,
        "PYTHONHASHSEED": str(hash_seed),
        "TAILMEM_DATA_DIR": str(data_dir),
        "SOURCE_DATE_EPOCH": "0",
        **extra,
    }


def command(
    repo_root: Path,
    workdir: Path,
    *options: str,
    overrides: tuple[str, ...] | list[str] = (),
    cores: int | None = 2,
    targets: tuple[str, ...] | list[str] = (),
) -> list[str]:
    """The Snakemake command line of a smoke-scale test run in `workdir` (the one place the tests build it):
    `options` before `--config`, which takes the scale and the Hydra `overrides`, then `--` and the targets."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(repo_root / "Snakefile"), "--directory", str(workdir)]
    cmd += ["--cores", str(cores)] if cores is not None else []
    cmd += [*options, "--config", "scale=smoke", "overrides=[" + ",".join(f'"{o}"' for o in overrides) + "]"]
    return cmd + (["--", *targets] if targets else [])


def snakemake(
    workdir: Path,
    repo_root: Path,
    data_dir: Path,
    *extra: str,
    overrides: tuple[str, ...] | list[str] = (),
    hash_seed: int = HASH_SEED,
    environ: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """`snakemake --cores 2` on the smoke scale in `workdir`, with the shared run's config: a dry run or a re-run
    that adds no override sees the shared run's jobs as they were made (same params, so nothing to do)."""
    cmd = command(repo_root, workdir, *extra, overrides=[f"data_dir={data_dir}", *overrides])
    run_env = env(data_dir, hash_seed, **(environ or {}))
    return subprocess.run(cmd, capture_output=True, text=True, cwd=repo_root, env=run_env, timeout=3600)


@dataclass(frozen=True)
class Job:
    """One job of a run, as Snakemake's log names it."""

    rule: str
    outputs: tuple[str, ...]
    wildcards: dict[str, str]
    reason: str  # why Snakemake ran it


def jobs_in(log: str) -> list[Job]:
    """The jobs a Snakemake log (or a run's printed output) shows, in the order it started them."""
    out = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:\n)", log):
        m = re.match(r"(?:local)?rule (\w+):\n", block)
        files = re.search(r"^\s+output: (.*)$", block, re.M)
        if m and files:
            given = re.search(r"^\s+wildcards: (.*)$", block, re.M)
            pairs = [w.split("=", 1) for w in given.group(1).split(", ")] if given else []
            reason = re.search(r"^\s+reason: (.*)$", block, re.M)
            out.append(
                Job(m.group(1), tuple(files.group(1).split(", ")), dict(pairs), reason.group(1) if reason else "")
            )
    return out


@dataclass(frozen=True)
class SmokeRun:
    """A finished smoke run: its folder, seconds, the checkout's state when it started, and Snakemake's log."""

    workdir: Path
    seconds: float
    tree: str

    def output(self) -> str:
        """What `snakemake` printed (stdout, then stderr)."""
        return (self.workdir.parent / "smoke-run.out").read_text()

    def log(self) -> str:
        """Snakemake's own log of the run (every job: its rule, wildcards, output files)."""
        [path] = sorted((self.workdir / ".snakemake" / "log").glob("*.snakemake.log"))
        return path.read_text()

    def jobs(self) -> list[Job]:
        """Every job the run made, in the order it started them."""
        return jobs_in(self.log())

    def rules(self) -> Counter:
        """Jobs run, counted by rule."""
        return Counter(job.rule for job in self.jobs())


def shared_root(tmp_path_factory) -> Path:
    """The session's temporary folder every xdist worker sees (each worker's basetemp is a child of it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def smoke_run(tmp_path_factory, repo_root: Path, data_dir: Path) -> SmokeRun:
    """The session's smoke run, made by the first caller (any worker) and read by the others."""
    root = shared_root(tmp_path_factory)
    workdir, done = root / "smoke-run", root / "smoke-run.json"
    with open(root / "smoke-run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits here while the first one runs the DAG
        if not done.exists():
            workdir.mkdir(exist_ok=True)
            tree = tree_state(repo_root)
            t0 = time.time()
            run = snakemake(workdir, repo_root, data_dir)
            (root / "smoke-run.out").write_text(run.stdout + run.stderr)
            done.write_text(json.dumps({"returncode": run.returncode, "seconds": time.time() - t0, "tree": tree}))
        record = json.loads(done.read_text())
    found = SmokeRun(workdir, record["seconds"], record["tree"])
    assert record["returncode"] == 0, f"the shared smoke run in {workdir} failed:\n{found.output()[-6000:]}"
    return found
