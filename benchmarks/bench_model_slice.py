"""The model slice's wall time and the share of it spent inside llama.cpp (prints, never asserts).

Runs a scale's model slice from scratch in a temporary working directory (`snakemake model_all`, so only the slice's
jobs), then reads the slice's call cache: the sum of the calls' latencies is the time inside the model. With
`--cores N` side by side, the share is that sum over N x the wall time; the aim is >= 85% (the
pipeline around the model must not be the bottleneck). The kv-prefix folder is moved aside for the run, so the
figure is a fresh machine's.

    python benchmarks/bench_model_slice.py                 # the smoke slice, 2 cores
    python benchmarks/bench_model_slice.py --scale default # the default slice (about 45 min)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", default="smoke")
    ap.add_argument("--cores", type=int, default=2)
    args = ap.parse_args()
    from tailmem.llm.backends import kv_prefix
    from tailmem.workflow import compose_config

    main_cfg = compose_config(args.scale, [])
    slice_cfg = compose_config(main_cfg.scale.model_slice, [])
    data_dir = (ROOT / str(main_cfg.data_dir)).resolve()  # the run happens in another folder
    kv, aside = kv_prefix.folder(), None
    if kv.exists():
        aside = kv.with_name(f"kv-prefix.aside-{os.getpid()}")
        kv.rename(aside)
    try:
        with tempfile.TemporaryDirectory() as work:
            cmd = [
                sys.executable,
                "-m",
                "snakemake",
                "--snakefile",
                str(ROOT / "Snakefile"),
                "--directory",
                work,
                "--cores",
                str(args.cores),
                "--config",
                f"scale={args.scale}",
                f'overrides=["data_dir={data_dir}"]',
                "--",
                "model_all",
            ]
            start = time.perf_counter()
            done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
            wall = time.perf_counter() - start
            if done.returncode or "python -m tailmem data" in done.stderr:
                sys.exit(f"the slice failed or lacked its data:\n{done.stderr[-3000:]}")
            db = Path(work) / str(slice_cfg.llm.cache_path).replace(str(ROOT) + "/", "")
            with sqlite3.connect(db) as con:
                calls, inside, sent, cached, gen = con.execute(
                    "select count(*), sum(latency_s), sum(prompt_tokens), sum(cached_tokens), "
                    "sum(completion_tokens) from calls"
                ).fetchone()
    finally:
        if aside is not None:
            shutil.rmtree(kv, ignore_errors=True)
            aside.rename(kv)
    share = inside / (args.cores * wall)
    print(
        f"model slice of scale {args.scale}: {wall:.1f} s wall on {args.cores} cores, {calls} model calls, "
        f"{inside:.1f} s inside llama.cpp = {share:.1%} of {args.cores} x wall (goal >= 85%); prompt tokens "
        f"sent {sent}, served from the KV prefix {cached} ({cached / max(sent, 1):.0%}), generated {gen}"
    )


if __name__ == "__main__":
    main()
