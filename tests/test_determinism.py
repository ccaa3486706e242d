"""Issue 12, determinism: the same commit and config give the same artifacts whatever the interpreter's hash
seed. The cluster test's slice of the smoke DAG (every cheap rule kind: graph world, rollout, audit, random-walk
tables and figures, controller arms and report, LongMemEval run and report, filesystem-memory store, answers and
table) runs twice in fresh folders under PYTHONHASHSEED 1 and 2; every artifact but the logs must be equal byte
for byte once timing and host fields are taken out. ALFWorld has its own test (tests/alfworld/
test_alfworld_determinism.py). Both runs share one working tree, so provenance footers are compared as written (masked only if the
checkout changed between the runs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from artifact_kit import SLICE, TARGETS, differing, tree_state


def _run(repo_root: Path, workdir: Path, data_dir: Path, hash_seed: int) -> None:
    # SOURCE_DATE_EPOCH: matplotlib writes it as a PDF's creation date instead of the clock.
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed), "TAILMEM_DATA_DIR": str(data_dir), "SOURCE_DATE_EPOCH": "0"}
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(repo_root / "Snakefile"),
        "--directory",
        str(workdir),
        "--cores",
        "2",
        "--config",
        "scale=smoke",
        "overrides=[" + ",".join(f'"{o}"' for o in SLICE) + "]",
        "--",
        *TARGETS,
    ]
    done = subprocess.run(cmd, cwd=repo_root, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stderr[-4000:]}"


@pytest.mark.slow
def test_every_rule_kind_is_byte_identical_under_two_hash_seeds(repo_root, data_dir, tmp_path):
    before = tree_state(repo_root)
    for h in (1, 2):
        (tmp_path / f"h{h}").mkdir()
        _run(repo_root, tmp_path / f"h{h}", data_dir, h)
    # a checkout edited between the runs changes only the provenance's code fields (dirty flag, diff hash)
    only, differ = differing(tmp_path / "h1", tmp_path / "h2", mask_code=tree_state(repo_root) != before)
    assert not only, f"written by one run only: {only[:10]}"
    assert not differ, f"differ between hash seeds: {differ[:20]}"
    assert (tmp_path / "h1" / "results").exists() and len(list((tmp_path / "h1").rglob("*.parquet"))) > 0
