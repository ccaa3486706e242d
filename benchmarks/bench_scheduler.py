"""What Snakemake's own process spends scheduling a run, with the Snakefile's `onstart` (no job-start limiter on a
local run) against Snakemake's default (`--no-hooks`: its 100-jobs-a-second limiter kept).

Why: the limiter wakes the scheduler every second, and every wake re-selects among all ready jobs, statting each
one's inputs. On the default run with its model slice, 99 jobs waited for a core while two model jobs ran: the
scheduler used 919 CPU-seconds in its first 45 minutes (34% of one of the 2 cores), two-thirds of it in
`update_input_sizes` (py-spy). Without the limiter it selects when a job finishes, as Snakemake did before 8.

Each arm runs the same target from scratch in its own folder, in turn (`--rounds` pairs, order alternating); the
CPU seconds are the snakemake process's own (utime + stime from /proc, polled until it exits: its jobs are
other processes), wall seconds the run's. Prints per round and the ratio of the medians; asserts nothing.

Run: python benchmarks/bench_scheduler.py [--target all] [--scale smoke] [--rounds 1]
     [--override scale.model_slice=null]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def own_cpu(pid: int) -> float | None:
    """utime + stime of `pid` alone, in seconds (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # fields 14 and 15 of proc(5), counted after the name


def run(workdir: Path, target: str, scale: str, overrides: list[str], hooks: bool) -> tuple[float, float]:
    """(wall seconds, the snakemake process's own CPU seconds) of one run of `target` in `workdir`."""
    argv = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir)]
    argv += ["--cores", "2", "--quiet", "all", *([] if hooks else ["--no-hooks"])]
    argv += ["--config", f"scale={scale}", "overrides=[" + ",".join(f'"{o}"' for o in overrides) + "]", "--", target]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    cpu = 0.0
    while proc.poll() is None:
        cpu = own_cpu(proc.pid) or cpu
        time.sleep(0.2)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{proc.stderr.read()[-3000:]}")
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="all")
    ap.add_argument("--scale", default="smoke")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--override", action="append", default=[], help="a Hydra override for both arms")
    args = ap.parse_args()
    results: dict[str, list[tuple[float, float]]] = {"onstart (no limiter)": [], "--no-hooks (limiter)": []}
    for i in range(args.rounds):
        arms = list(results) if i % 2 == 0 else list(reversed(results))
        for arm in arms:
            with tempfile.TemporaryDirectory(prefix="bench_scheduler_") as tmp:
                wall, cpu = run(Path(tmp), args.target, args.scale, args.override, hooks=arm.startswith("onstart"))
            results[arm].append((wall, cpu))
            print(f"round {i + 1} {arm}: wall {wall:.1f} s, snakemake's own CPU {cpu:.1f} s", flush=True)
    (new, ref) = (results[a] for a in results)
    for k, what in ((0, "wall"), (1, "snakemake CPU")):
        a, b = statistics.median(r[k] for r in new), statistics.median(r[k] for r in ref)
        print(f"{what}: {a:.1f} s without the limiter, {b:.1f} s with it (ratio {a / b:.2f})")


if __name__ == "__main__":
    main()
