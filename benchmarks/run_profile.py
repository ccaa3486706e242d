"""Where a finished run's time went: each rule's jobs and seconds, each model role's calls and seconds, and the
wall time the two put out of reach on a given number of cores.

Why: the default run is held to 90 minutes on 2 cores (README, Scales), and whether it fits depends on the machine
as much as on the code. A run's wall time is at least its job-seconds over its cores (each job holds a core while it
runs); this splits those job-seconds into the model's calls (the call caches' latencies) and the rest, so a slower
machine's excess is seen where it is, and a cut is sized before a two-hour run is spent on it.

It reads what the run itself wrote: Snakemake's job records (`.snakemake/metadata`: each output's job, rule,
start and end) and the call caches the run records (`tailmem.llm.cache_cli.run_caches`, as `cache stats` finds
them: tokens and latency per call actually made). A call served from the cache is not in it, so a resumed run
counts each call once; a results folder that earlier runs wrote to holds their calls too, so profile a fresh
clone's run.

Run: python benchmarks/run_profile.py [overrides...] [--dir CHECKOUT] [--cores 2] [--rules 15]
(the run's Hydra overrides, e.g. scale=smoke, as given to Snakemake's --config)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pandas as pd


def jobs(checkout: Path) -> pd.DataFrame:
    """One row per finished job (rule, start, end, seconds): Snakemake keeps a record per output file, and the
    outputs of one job share its hash and end (each file's start is stamped a few microseconds apart)."""
    folder = checkout / ".snakemake" / "metadata"
    if not folder.is_dir():
        sys.exit(f"{folder}: no Snakemake job records (run the workflow in {checkout} first)")
    rows = []
    for f in folder.iterdir():
        try:
            rec = json.loads(f.read_text())
        except (OSError, ValueError):
            continue  # a record Snakemake was writing, or another version's format
        if rec.get("incomplete") or rec.get("starttime") is None or rec.get("endtime") is None:
            continue
        rows.append((rec["rule"], rec.get("job_hash"), float(rec["starttime"]), float(rec["endtime"])))
    out = pd.DataFrame(rows, columns=["rule", "job", "start", "end"])
    out = out.groupby(["rule", "job", "end"], as_index=False).start.min()
    return out.assign(seconds=out.end - out.start)


def calls(checkout: Path, overrides: list[str]) -> pd.DataFrame:
    """Per role: calls, prompt tokens evaluated (sent minus those served from the KV prefix), generated tokens and
    seconds inside the model, over the caches a run with `overrides` records (its scale's and its model slice's,
    in either layout: `python -m tailmem cache stats` finds and reads them the same way)."""
    from tailmem.llm.cache_cli import run_caches

    os.chdir(checkout)  # llm.cache_path is relative to the folder the run was made in
    rows = []
    for c in run_caches(overrides):
        if c.location.exists():
            rows += [
                (r.role, r.calls, r.prompt_tokens - r.cached_tokens, r.completion_tokens, r.seconds) for r in c.stats()
            ]
    out = pd.DataFrame(rows, columns=["role", "calls", "evaluated", "generated", "seconds"])
    return out.groupby("role", as_index=False).sum()


def busy_shares(job_rows: pd.DataFrame, cores: int) -> dict[int, float]:
    """Share of the run's wall time with k jobs running, k = 0..cores (more counts as `cores`). A job of several
    threads (ALFWorld's game generation takes 2) counts once: Snakemake's records do not keep its threads."""
    events = sorted([(t, 1) for t in job_rows.start] + [(t, -1) for t in job_rows.end])
    spent = dict.fromkeys(range(cores + 1), 0.0)
    running, last = 0, events[0][0]
    for t, step in events:
        spent[min(running, cores)] += t - last
        running, last = running + step, t
    wall = events[-1][0] - events[0][0]
    return {k: v / wall for k, v in spent.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("overrides", nargs="*", help="the run's Hydra overrides (scale=smoke...)")
    ap.add_argument("--dir", dest="checkout", type=Path, default=Path("."), help="the folder the run was made in")
    ap.add_argument("--cores", type=int, default=2, help="the cores the run had (snakemake --cores)")
    ap.add_argument("--rules", type=int, default=15, help="how many rules to list, the dearest first")
    args = ap.parse_args()
    done = jobs(args.checkout)
    if done.empty:
        sys.exit(f"{args.checkout}: no finished job recorded")
    wall = done.end.max() - done.start.min()
    job_s = done.seconds.sum()
    model = calls(args.checkout.resolve(), args.overrides)
    model_s = float(model.seconds.sum())
    print(f"{len(done)} jobs in {wall / 60:.1f} min of wall time on {args.cores} cores")
    print(
        f"job-seconds {job_s:,.0f}: model calls {model_s:,.0f} ({int(model.calls.sum()):,} calls), "
        f"the rest {job_s - model_s:,.0f}; at {args.cores} cores no schedule ends before "
        f"{job_s / args.cores / 60:.1f} min"
    )
    shares = busy_shares(done, args.cores)
    print("share of wall time with k jobs running: " + ", ".join(f"{k}: {v:.1%}" for k, v in shares.items()))
    per_rule = (
        done.groupby("rule").seconds.agg(["count", "sum", "max"]).sort_values("sum", ascending=False).head(args.rules)
    )
    print("\n" + per_rule.rename(columns={"count": "jobs", "sum": "seconds", "max": "longest"}).round(0).to_string())
    if not model.empty:
        model = model.assign(s_per_call=model.seconds / model.calls).sort_values("seconds", ascending=False)
        print("\n" + model.round(2).to_string(index=False))


if __name__ == "__main__":
    main()
