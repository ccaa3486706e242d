"""What a scale needs on a cluster, on paper: CPU-hours from a measured smoke run, LLM-call multipliers per stage.

    python profiles/slurm/estimate.py --measured DIR [--scale paper] [--from-scale smoke]

DIR is the working folder of a finished `snakemake all` at `--from-scale` (e.g. `benchmarks/bench_dag.py --keep
DIR`): every job log there ends in `tailmem timing: startup S s, total T s`. For each rule the script takes the
mean start-up and the mean own work (T - S) per job, counts the rule's jobs at `--scale` with a Snakemake dry run,
and scales the own work by how much more one job does there (`WORK`, read from the two composed configs: steps per
trajectory, bootstrap replicates, states, questions, games). CPU-hours = jobs x (start-up + work x factor). The
model is linear in each unit; it is a plan, not a measurement - a stage whose cost grows faster than its unit
count (e.g. a tail fit over more distinct counts) is underestimated.

LLM calls: `llm_cost --times STAGE=N` scales a smoke call cache to this scale; the script prints the N of each
stage (jobs at the scale x factor / jobs measured), and the policy calls of the controller study, which
`scale=paper` sets to a model (one call per step).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMING = re.compile(r"tailmem timing: startup ([0-9.]+) s, total ([0-9.]+) s")
JOB_LINE = re.compile(r"^(\S+)\s+(\d+)$")
# The stage a rule runs, where the names differ (the call cache is keyed by stage).
STAGE_OF = {
    "fsmem_store": "fsmem_build",
    "fsmem_harness_store": "fsmem_build",
    "fsmem_strength_store": "fsmem_build",
    "fsmem_replicate_store": "fsmem_build",
    "fsmem_answers": "fsmem_answer",
    "fsmem_harness_answers": "fsmem_answer",
    "fsmem_strength_answers": "fsmem_answer",
    "fsmem_replicate_answers": "fsmem_answer",
    "longmemeval_run": "longmemeval",
}
LOG_OF = {"longmemeval_run": "longmemeval"}  # a rule whose logs sit under another name (workflows/*.smk log_of)
# Stages with a model role (llm.roles): the ones a call cache has rows for.
LLM_STAGES = (
    "rollout",
    "control",
    "longmemeval",
    "fsmem_build",
    "fsmem_answer",
    "fsmem_personamem",
    "alfworld_memory",
    "alfworld_skills",
)


def measured(folder: Path) -> dict[str, list[tuple[float, float]]]:
    """rule -> [(start-up s, own work s)] per job log under `folder`'s results logs."""
    out: dict[str, list[tuple[float, float]]] = defaultdict(list)
    logs = [p for p in folder.glob("results/**/logs") if p.is_dir()]
    for root in logs:
        for f in root.rglob("*.log"):
            rule = f.relative_to(root).parts[0].removesuffix(".log")
            for m in TIMING.finditer(f.read_text(errors="replace")):
                start, total = float(m.group(1)), float(m.group(2))
                out[rule].append((start, max(0.0, total - start)))
    if not out:
        sys.exit(f"estimate: no `tailmem timing` lines under {folder}/results/**/logs; run the DAG there first")
    return out


def job_counts(scale: str) -> dict[str, int]:
    """rule -> jobs of `snakemake all` at `scale`, from a dry run of the whole DAG (as if nothing existed)."""
    argv = [
        sys.executable,
        "-m",
        "snakemake",
        "-n",
        "-F",
        "--quiet",
        "rules",
        "--cores",
        "2",
        "--config",
        f"scale={scale}",
        "--",
        "all",
    ]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"estimate: {' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    counts = {}
    for line in (done.stdout + done.stderr).splitlines():
        m = JOB_LINE.match(line.strip())
        if m and m.group(1) not in ("total", "all"):
            counts[m.group(1)] = int(m.group(2))
    return counts


def _questions(cfg, bench: str) -> float:
    limit = cfg.fsmem.max_questions
    if limit is not None:
        return float(limit)
    if bench == "locomo":  # conv-50's questions of the configured categories (paper 2: 158)
        data = json.loads(Path(cfg.fsmem.data_file).read_text())
        conv = next(c for c in data if c.get("sample_id") == cfg.fsmem.conversation)
        return float(sum(1 for q in conv["qa"] if q.get("category") in set(cfg.fsmem.categories)))
    return 728 / 10  # REALTALK: 728 questions over 10 chats


def _games(cfg) -> float:
    subsets = list(cfg.alfworld.subsets)
    if subsets == ["smoke"]:
        return float(len(cfg.alfworld.smoke_games))
    sizes = {"valid_seen": 140, "valid_unseen": 134}  # the splits' game counts (data PROVENANCE.md)
    return statistics.mean(sizes.get(s, len(cfg.alfworld.smoke_games)) for s in subsets)


def units(cfg) -> dict[str, float]:
    """What one job of each rule does at this config, in the unit its cost grows with (1 where it does not)."""
    steps = float(cfg.rollout.episodes * cfg.rollout.steps)
    n = statistics.mean(cfg.scale.sizes)
    lme = cfg.longmemeval.max_per_type
    questions = _questions(cfg, "locomo")
    return {
        "graphworld": n,
        "rollout": steps,
        "control": steps,
        "audit": float(cfg.audit.bootstrap) * n,
        "longmemeval_run": 500.0 if lme is None else 6.0 * lme,
        "fsmem_answers": questions,
        "fsmem_harness_answers": questions,
        "fsmem_strength_answers": questions,
        "fsmem_replicate_answers": questions,
        "alfworld_memory": _games(cfg),
        "alfworld_skills": _games(cfg),
    }


def compose(scale: str):
    sys.path.insert(0, str(REPO / "src"))
    from tailmem.workflow import compose_config

    return compose_config(scale)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--measured", type=Path, required=True, help="working folder of a finished run at --from-scale")
    ap.add_argument("--scale", default="paper")
    ap.add_argument("--from-scale", default="smoke")
    a = ap.parse_args()
    runs = measured(a.measured)
    small, big = units(compose(a.from_scale)), units(compose(a.scale))
    counts = job_counts(a.scale)
    print(f"{'rule':26} {'jobs':>6} {'start s':>8} {'work s':>8} {'factor':>8} {'CPU h':>8}")
    total, scaled, measured_jobs = 0.0, defaultdict(float), defaultdict(int)
    for rule in sorted(counts, key=lambda r: -counts[r]):
        jobs = runs.get(LOG_OF.get(rule, rule))
        if not jobs:
            print(f"{rule:26} {counts[rule]:6d} {'(not in the measured run)':>35}")
            continue
        start = statistics.mean(s for s, _ in jobs)
        work = statistics.mean(w for _, w in jobs)
        factor = big.get(rule, 1.0) / small.get(rule, 1.0)
        hours = counts[rule] * (start + work * factor) / 3600
        total += hours
        stage = STAGE_OF.get(rule, rule)
        scaled[stage] += counts[rule] * factor  # this scale's work in measured-job units
        measured_jobs[stage] += len(jobs)
        print(f"{rule:26} {counts[rule]:6d} {start:8.2f} {work:8.2f} {factor:8.1f} {hours:8.2f}")
    print(f"{'all':26} {sum(counts.values()):6d} {'':8} {'':8} {'':8} {total:8.2f}")
    cfg = compose(a.scale)
    c = cfg.scale.control
    if str(c.policy) == "llm":
        calls = len(c.families) * len(c.seeds) * cfg.rollout.episodes * cfg.rollout.steps
        print(
            f"\ncontroller study: policy role is a model: {calls:,} policy calls ({len(c.families)} families x "
            f"{len(c.seeds)} seeds x {cfg.rollout.episodes} episodes x {cfg.rollout.steps} steps)"
        )
    times = {stage: scaled[stage] / measured_jobs[stage] for stage in scaled if stage in LLM_STAGES}
    print(
        "\nLLM calls and dollars: price a smoke call cache at this scale with\n  python -m tailmem llm_cost --db "
        "<smoke llm_cache.sqlite> " + " ".join(f"--times {s}={v:.1f}" for s, v in sorted(times.items()))
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
