"""Time a DAG run from scratch and say, per rule, how much of its job time went to start-up.

Every stage logs `tailmem timing: startup S s, total T s` (tailmem.runner): S is the process's age when the stage
function is called (interpreter, imports, config composition), T its age at the end. This script runs a target
in a fresh working folder, reads those lines from the rules' logs (`<results>/logs/<rule>/...`), and prints per
rule the job count, the summed job time and the share of it spent before the stage's own work. It then times a
no-op rerun. With `--baseline REF` it first runs the same target with the code of a git ref (a temporary
worktree put first on PYTHONPATH) in the same session, and prints the wall-time ratio.

Run: python benchmarks/bench_dag.py [--target all] [--scale smoke] [--cores 2] [--baseline main] [--keep DIR]
     [--override scale.model_slice=null]  (overrides apply to this tree's run, not the baseline's)
It measures; it asserts nothing. Absolute times depend on the machine's load: compare the ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TIMING = re.compile(r"tailmem timing: startup ([0-9.]+) s, total ([0-9.]+) s")


def run_dag(code: Path, workdir: Path, target: str, scale: str, cores: int, overrides: list[str] = ()) -> float:
    """Wall seconds of `snakemake <target>` over `code`'s Snakefile, run in `workdir`."""
    env = {**os.environ, "PYTHONPATH": f"{code / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    argv = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(code / "Snakefile"),
        "--directory",
        str(workdir),
        "--cores",
        str(cores),
        "--config",
        f"scale={scale}",
        *([f"overrides={list(overrides)!r}"] if overrides else []),
        "--quiet",
        "rules",
        "--",
        target,
    ]
    t = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=code, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit(f"bench_dag: {' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall


def per_rule(logs: Path) -> dict[str, list[tuple[float, float]]]:
    """rule -> [(startup, total)] for every job log under `logs` that has the timing line."""
    rules: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for f in sorted(logs.rglob("*.log")):
        rule = f.relative_to(logs).parts[0].removesuffix(".log")
        for m in TIMING.finditer(f.read_text(errors="replace")):
            rules[rule].append((float(m.group(1)), float(m.group(2))))
    return rules


def report(rules: dict[str, list[tuple[float, float]]]) -> None:
    rows = sorted(rules.items(), key=lambda kv: -sum(t for _, t in kv[1]))
    print(f"{'rule':28} {'jobs':>5} {'job time s':>11} {'startup s':>10} {'startup share':>14}")
    for rule, jobs in rows:
        start, total = sum(s for s, _ in jobs), sum(t for _, t in jobs)
        print(f"{rule:28} {len(jobs):5d} {total:11.1f} {start:10.1f} {start / total if total else 0:14.0%}")
    start = sum(s for jobs in rules.values() for s, _ in jobs)
    total = sum(t for jobs in rules.values() for _, t in jobs)
    print(
        f"{'all':28} {sum(map(len, rules.values())):5d} {total:11.1f} {start:10.1f} {start / total if total else 0:14.0%}"
    )


def measure(code: Path, label: str, a, keep: Path | None, overrides: list[str] = ()) -> float:
    workdir = keep or Path(tempfile.mkdtemp(prefix="bench_dag_"))
    workdir.mkdir(parents=True, exist_ok=True)
    wall = run_dag(code, workdir, a.target, a.scale, a.cores, overrides)
    noop = run_dag(code, workdir, a.target, a.scale, a.cores, overrides)
    print(
        f"\n[{label}] {a.target} at scale={a.scale} on {a.cores} cores: {wall:.1f} s from scratch, "
        f"no-op rerun {noop:.1f} s  (load average before: {os.getloadavg()[0]:.1f}; folder {workdir})"
    )
    logs = workdir / "results" / a.scale / "logs"  # smoke and paper write under results/<scale>/
    rules = per_rule(logs if logs.is_dir() else workdir / "results" / "logs")  # default writes under results/
    if rules:
        report(rules)
    else:
        print("  (no timing lines in the logs: this code predates them; wall time only)")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="all")
    ap.add_argument("--scale", default="smoke")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--baseline", help="a git ref to time first, in the same session (e.g. main)")
    ap.add_argument("--keep", type=Path, help="run in this folder (kept) instead of a temporary one")
    ap.add_argument(
        "--override",
        action="append",
        default=[],
        help="a Hydra override for this tree's run only (e.g. scale.model_slice=null); repeatable",
    )
    a = ap.parse_args()
    os.environ.setdefault("TAILMEM_DATA_DIR", str(REPO.parent / "shared" / "data"))
    base = None
    if a.baseline:
        tree = Path(tempfile.mkdtemp(prefix="bench_dag_ref_")) / "code"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), a.baseline],
            check=True,
            capture_output=True,
        )
        try:
            base = measure(tree, a.baseline, a, None)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], capture_output=True)
    ours = measure(REPO, "this tree", a, a.keep, a.override)
    if base:
        print(f"\nwall time, this tree / {a.baseline}: {ours / base:.2f}")


if __name__ == "__main__":
    main()
