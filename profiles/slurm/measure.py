"""Measure what each rule's job needs (peak memory, wall time), to size `set-resources` in profiles/slurm.

Runs Snakemake locally with a `python` shim first on PATH: every `python -m tailmem[.warmstart] <stage> ...` a rule
runs goes, cold (TAILMEM_WARMSTART=0: the stage in the job's own process, so its memory is the job's), through GNU time (`/usr/bin/time -f`: the process's peak resident set size and wall seconds), one record per
job, keyed by stage (a rule runs one stage; the fsmem store rules share `fsmem_build`, the answer rules
`fsmem_answer`).

    python profiles/slurm/measure.py --out measured.tsv -- --cores 2 --config scale=smoke
    python profiles/slurm/measure.py --report measured.tsv        # per stage: jobs, peak MB, wall and CPU s
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

TIME = "/usr/bin/time"
FIELDS = ("stage", "max_rss_kb", "wall_s", "cpu_s", "exit", "args")
# GNU time writes one line per job: peak RSS (KB) | elapsed s | user s | system s | exit status | command line
FORMAT = "%M|%e|%U|%S|%x|%C"


def _shim(folder: Path, records: Path) -> None:
    real = sys.executable
    script = folder / "python"
    script.write_text(
        "#!/bin/sh\n"
        "# measure.py: time `python -m tailmem[.warmstart] ...`, pass anything else straight through\n"
        f'if [ "$1" = "-m" ] && {{ [ "$2" = "tailmem" ] || [ "$2" = "tailmem.warmstart" ]; }}; then\n'
        f'  exec {TIME} -a -o {records} -f "{FORMAT}" {real} "$@"\n'
        "fi\n"
        f'exec {real} "$@"\n'
    )
    script.chmod(0o755)


def run(out: Path, snakemake_args: list[str]) -> int:
    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} not found: install GNU time (Debian: apt-get install time)")
    with tempfile.TemporaryDirectory(prefix="tailmem-measure-") as tmp:
        tmp = Path(tmp)
        raw = tmp / "records.txt"
        _shim(tmp, raw)
        env = {**os.environ, "PATH": f"{tmp}{os.pathsep}{os.environ.get('PATH', '')}", "TAILMEM_WARMSTART": "0"}
        done = subprocess.run([sys.executable, "-m", "snakemake", *snakemake_args], env=env)
        rows = list(parse(raw.read_text() if raw.exists() else ""))
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh, delimiter="\t")
        w.writerow(FIELDS)
        w.writerows([r[k] for k in FIELDS] for r in rows)
    print(f"{len(rows)} timed jobs -> {out}")
    return done.returncode


def parse(text: str):
    for line in text.splitlines():
        parts = line.split("|", 5)
        if len(parts) != 6 or not parts[0].isdigit():
            continue  # GNU time's "Command exited with non-zero status" line
        rss, wall, user, system, code, cmd = parts
        args = cmd.split()
        runner = next((a for a in args[:-1] if a in ("tailmem", "tailmem.warmstart")), None)
        stage = args[args.index(runner) + 1] if runner else "?"
        yield {
            "stage": stage,
            "max_rss_kb": int(rss),
            "wall_s": float(wall),
            "cpu_s": round(float(user) + float(system), 2),
            "exit": int(code),
            "args": cmd,
        }


def report(path: Path) -> None:
    by = defaultdict(list)
    with open(path) as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            by[row["stage"]].append((int(row["max_rss_kb"]) / 1024, float(row["wall_s"]), float(row["cpu_s"])))
    print(f"{'stage':28} {'jobs':>5} {'peak MB':>8} {'max wall s':>10} {'max cpu s':>10} {'mean cpu s':>10}")
    for stage, rows in sorted(by.items()):
        mem, wall, cpu = zip(*rows)
        print(
            f"{stage:28} {len(rows):5d} {max(mem):8.0f} {max(wall):10.1f} {max(cpu):10.1f} {statistics.mean(cpu):10.1f}"
        )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, help="write one TSV row per timed job here, running snakemake")
    p.add_argument("--report", type=Path, help="summarise a TSV written by --out, per stage")
    p.add_argument("snakemake_args", nargs=argparse.REMAINDER, help="after --: arguments for snakemake")
    a = p.parse_args()
    if a.report:
        report(a.report)
        return 0
    if not a.out:
        p.error("give --out FILE -- <snakemake arguments>, or --report FILE")
    args = a.snakemake_args[1:] if a.snakemake_args[:1] == ["--"] else a.snakemake_args
    code = run(a.out, args)
    report(a.out)
    return code


if __name__ == "__main__":
    sys.exit(main())
