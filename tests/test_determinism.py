"""Issue 12, determinism: the same commit and config give the same artifacts whatever the interpreter's hash
seed. The session's smoke run (tests/smoke_run.py) was made under PYTHONHASHSEED 1. A copy of it re-runs under
PYTHONHASHSEED 2, from the inputs the first run made, every cheap rule kind (graph world, rollout, audit,
random-walk tables and figures, controller arms and report, LongMemEval run and report, filesystem-memory store,
answers and table): per rule its jobs on one world, so every policy, design, arm and variant the rule ran is
re-run once. Every artifact but the logs must be equal byte for byte once timing and host fields are taken out. A
job that writes the same bytes from the same inputs under either seed makes a chain of such jobs write the same
bytes, so this checks what two whole runs under two seeds would, without a second whole run.

Left out: the model slice's rules (the embedded model's replies are checked where they are made, in tests/llm),
ALFWorld's (tests/alfworld/test_alfworld_determinism.py re-plays its games under two seeds) and the site's (its
overview counts every meta.json in the results folder, its own earlier one included when it is re-run in place,
and records its build seconds). Both runs share one working tree, so provenance footers are compared as written
(masked only if the checkout changed between the runs)."""

from __future__ import annotations

import shutil
from collections import defaultdict

import pytest

import smoke_run
from artifact_kit import SLICE_RULES, differing, tree_state

# Wildcards that name the data a job reads (a world, a conversation, a dataset, a log), not the method it runs.
DATA_WILDCARDS = ("family", "n", "seed", "bench", "conv", "dataset", "access_log")


def jobs_to_rerun(smoke) -> list[smoke_run.Job]:
    """Per rule, its jobs on one world: the world (data wildcards) with the most jobs of that rule, so every policy,
    design, arm, variant and harness the rule ran is re-run once (the first such world in sorted order)."""
    by_rule: dict[str, dict[tuple, list]] = defaultdict(lambda: defaultdict(list))
    for job in smoke.jobs():
        if job.rule in SLICE_RULES:
            world = tuple(job.wildcards.get(k, "") for k in DATA_WILDCARDS)
            by_rule[job.rule][world].append(job)
    chosen = []
    for worlds in by_rule.values():
        most = max(len(js) for js in worlds.values())
        chosen += worlds[min(w for w, js in worlds.items() if len(js) == most)]
    return chosen


@pytest.mark.slow
def test_every_rule_kind_is_byte_identical_under_two_hash_seeds(smoke, repo_root, data_dir):
    # The run's folder with Snakemake's records of its jobs (params, code digests), file times kept; beside it, so
    # that paths relative to the run (the example access logs') stay the same.
    copy = smoke.workdir.with_name(smoke.workdir.name + "-hash-seed-2")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(smoke.workdir, copy, ignore=shutil.ignore_patterns("locks", "log", "incomplete"))
    chosen = jobs_to_rerun(smoke)
    assert {job.rule for job in chosen} == SLICE_RULES
    assert len([job for job in chosen if job.rule == "control"]) == smoke.rules()["control"]  # every arm
    done = smoke_run.snakemake(copy, repo_root, data_dir, "--force", *(job.outputs[0] for job in chosen), hash_seed=2)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    # Those jobs ran, and the jobs downstream of them that another one reads; nothing ran because the copy looked
    # out of date (its params, code or file times).
    ran = smoke_run.jobs_in(out)
    assert {job.outputs[0] for job in chosen} <= {job.outputs[0] for job in ran}, out[-3000:]
    why = ("Forced execution", "Input files updated by another job")
    stale = [(job.rule, job.reason) for job in ran if not job.reason.startswith(why)]
    assert not stale, stale[:5]
    # a checkout edited between the runs changes only the provenance's code fields (dirty flag, diff hash)
    only, differ = differing(smoke.workdir, copy, mask_code=tree_state(repo_root) != smoke.tree)
    assert not only, f"written by one run only: {only[:10]}"
    assert not differ, f"differ between hash seeds: {differ[:20]}"
    assert len(list(copy.rglob("*.parquet"))) > 0
    shutil.rmtree(copy)
