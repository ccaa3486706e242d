"""benchmarks/run_profile.py, the default run's time account: run as a script on a toy checkout (Snakemake job
records as Snakemake 9 writes them, call caches with the project's schema where the default scale and its model
slice record them), it must count a job of several outputs once, add the model's seconds per role from both caches,
and bound the wall time by the job-seconds over the cores."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from tailmem.llm.cache import SCHEMA

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "run_profile.py"


def _record(folder: Path, name: str, rule: str, job: int, start: float, end: float) -> None:
    rec = {"rule": rule, "job_hash": job, "starttime": start, "endtime": end, "incomplete": False}
    (folder / name).write_text(json.dumps(rec))


def _cache(path: Path, rows: list[tuple[str, int, int, int, float]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
        for i, (role, prompt, cached, completion, latency) in enumerate(rows):
            conn.execute(
                "INSERT INTO calls VALUES (?, ?, 's', 'b', 'm', '{}', '{}', ?, ?, ?, 0, ?, 0)",
                (f"h{role}{i}", role, prompt, cached, completion, latency),
            )


def test_jobs_calls_and_the_bound(tmp_path):
    meta = tmp_path / ".snakemake" / "metadata"
    meta.mkdir(parents=True)
    # a report job of three outputs (each file's start a few microseconds apart), two model jobs side by side, and a
    # job still running (no end yet): 3 finished jobs, 10 + 60 + 40 = 110 job-seconds over 70 s of wall time, two
    # jobs at once from 110 to 150 s (40 of the 70)
    for i in range(3):
        _record(meta, f"r{i}", "report", 7, 100.0 + i * 1e-6, 110.0)
    _record(meta, "a", "model_control", 8, 110.0, 170.0)
    _record(meta, "b", "model_rollout", 9, 110.0, 150.0)
    (meta / "c").write_text(json.dumps({"rule": "site", "job_hash": 10, "starttime": 150.0, "endtime": None}))
    (meta / "d").write_text("{not json")  # a record being written
    _cache(tmp_path / "results" / "model" / "llm_cache.sqlite", [("predictor", 100, 60, 3, 20.0)] * 2)
    _cache(tmp_path / "results" / "llm_cache.sqlite", [("policy", 50, 0, 1, 5.0)])
    out = subprocess.run([sys.executable, str(SCRIPT), "--dir", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "3 jobs in 1.2 min of wall time on 2 cores"
    assert lines[1] == (
        "job-seconds 110: model calls 45 (3 calls), the rest 65; at 2 cores no schedule ends before 0.9 min"
    )
    assert lines[2] == "share of wall time with k jobs running: 0: 0.0%, 1: 42.9%, 2: 57.1%"
    predictor = next(line for line in lines if line.split()[:1] == ["predictor"])
    assert predictor.split() == ["predictor", "2", "80", "6", "40.0", "20.0"]  # evaluated = sent - KV-served


def test_a_folder_with_no_run_says_so(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), "--dir", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "no Snakemake job records" in out.stderr
