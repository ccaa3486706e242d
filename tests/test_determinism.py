"""Issue 12, determinism: the same commit and config give the same artifacts whatever the interpreter's hash
seed. The session's smoke run (tests/smoke_run.py) was made under PYTHONHASHSEED 1; a copy of it re-runs one job of
every rule kind it ran under PYTHONHASHSEED 2 (graph world, rollout, audit, random-walk tables and figures,
controller arms and report, calibration, design check, LongMemEval run and report, filesystem-memory stores,
answers and tables, the access-log audit, the site), each from the inputs the first run made; every artifact but
the logs must be equal byte for byte once timing and host fields are taken out. A job that gives the same bytes
from the same inputs under either seed makes a chain of such jobs give the same bytes too, so this is the check of
two whole runs under two seeds, without a second whole run.

Left out: the model slice's rules (model_*: the embedded model's own replies are checked where they are made, in
tests/llm) and ALFWorld's (tests/alfworld/test_alfworld_determinism.py re-plays its games under two seeds). Both
runs share one working tree, so provenance footers are compared as written (masked only if the checkout changed
between the runs)."""

from __future__ import annotations

import re
import shutil

import pytest

import smoke_run
from artifact_kit import differing, tree_state

LEFT_OUT = ("model_", "alfworld_")


def rerun_one_job_per_rule(smoke) -> dict[str, str]:
    """rule -> the output file of its job that is re-run (the first in path order, so the choice is stable)."""
    chosen: dict[str, str] = {}
    for rule, outputs in smoke.jobs():
        if not rule.startswith(LEFT_OUT):
            chosen[rule] = min(outputs[0], chosen.get(rule, outputs[0]))
    return chosen


@pytest.mark.slow
def test_every_rule_kind_is_byte_identical_under_two_hash_seeds(smoke, repo_root, data_dir, tmp_path):
    copy = tmp_path / "h2"
    # the run's folder with Snakemake's records of its jobs (params, code digests), file times kept
    shutil.copytree(smoke.workdir, copy, ignore=shutil.ignore_patterns("locks", "log", "incomplete"))
    chosen = rerun_one_job_per_rule(smoke)
    assert {"graphworld", "rollout", "audit", "tables_random_walk", "control", "fsmem_answers"} <= set(chosen)
    done = smoke_run.snakemake(copy, repo_root, data_dir, "--force", *chosen.values(), hash_seed=2)
    assert done.returncode == 0, done.stderr[-4000:]
    steps = re.findall(r"(\d+) of (\d+) steps \(100%\) done", done.stdout + done.stderr)
    assert steps and int(steps[-1][1]) == len(chosen), (chosen, (done.stdout + done.stderr)[-3000:])
    # a checkout edited between the runs changes only the provenance's code fields (dirty flag, diff hash)
    only, differ = differing(smoke.workdir, copy, mask_code=tree_state(repo_root) != smoke.tree)
    assert not only, f"written by one run only: {only[:10]}"
    assert not differ, f"differ between hash seeds: {differ[:20]}"
    assert len(list(copy.rglob("*.parquet"))) > 0
