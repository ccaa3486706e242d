"""The default data folder (`../shared/data`) is found from the checkout, not from the working directory.

Found by a newcomer: with no TAILMEM_DATA_DIR, a workflow loaded with another working directory (a test's
`workdir=tmp_path`, a user's `snakemake --directory elsewhere`) read `../shared/data` from there: "no REALTALK
chats", and the DAG left the benchmark targets out. The default is relative to the folder that holds the config
folder (the checkout; `$TAILMEM_CONFIGS`'s parent when that moves the configs), so every working directory reads
the same data. Here a copy of the configs sits in a checkout of the test's, beside a `shared/data` that is the real
data folder, and the workflow runs from a folder where `../shared/data` does not exist.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def where(path) -> Path:
    """The folder a path from the config names, from the working directory (`..` folded, links kept)."""
    return Path(os.path.normpath(Path.cwd() / path))


@pytest.fixture()
def checkout(tmp_path, data_dir, monkeypatch):
    """A checkout of the test's (its configs a copy of the repository's, `../shared/data` the real data) and a
    working directory two levels away from it, where `../shared/data` is nothing; TAILMEM_DATA_DIR unset."""
    home = tmp_path / "checkout"
    shutil.copytree(ROOT / "configs", home / "configs")
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(data_dir, target_is_directory=True)
    elsewhere = tmp_path / "a" / "b" / "elsewhere"
    elsewhere.mkdir(parents=True)
    monkeypatch.delenv("TAILMEM_DATA_DIR", raising=False)
    monkeypatch.setenv("TAILMEM_CONFIGS", str(home / "configs"))
    monkeypatch.chdir(elsewhere)
    return home, elsewhere


def test_the_default_data_folder_is_the_checkouts_from_any_working_directory(checkout, tmp_path):
    from tailmem.data.fetch import data_dir_default
    from tailmem.workflow import compose_config

    cfg = compose_config("smoke")
    assert where(cfg.data_dir) == tmp_path / "shared" / "data"
    assert where(data_dir_default()) == tmp_path / "shared" / "data"  # `python -m tailmem data`'s default too


def test_the_repository_default_does_not_depend_on_the_working_directory(tmp_path, monkeypatch):
    from tailmem.workflow import compose_config

    monkeypatch.delenv("TAILMEM_DATA_DIR", raising=False)
    monkeypatch.delenv("TAILMEM_CONFIGS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert where(compose_config("smoke").data_dir) == (ROOT.parent / "shared" / "data").resolve()
    monkeypatch.chdir(ROOT)  # from the checkout, the path the config gives, so rules and commands name it as before
    assert compose_config("smoke").data_dir == "../shared/data"
    monkeypatch.setenv("TAILMEM_DATA_DIR", "/some/where")  # the variable still wins
    assert compose_config("smoke").data_dir == "/some/where"


def test_a_dag_built_in_another_working_directory_has_the_benchmark_targets(checkout):
    from tailmem.dag import Pipeline

    dag = Pipeline("smoke", (), False, str(ROOT))
    assert dag.data_missing == []
    assert any("/fsmem/" in t or "longmemeval" in t for t in dag.all_targets)


@pytest.mark.slow
def test_snakemake_directory_elsewhere_plans_the_benchmark_jobs(checkout):
    """`snakemake --directory elsewhere -n` with no TAILMEM_DATA_DIR: the benchmark rules are in the plan."""
    _, elsewhere = checkout
    cmd = [sys.executable, "-m", "snakemake", "-n", "--cores", "2", "--config", "scale=smoke"]
    cmd += ["--snakefile", str(ROOT / "Snakefile"), "--directory", str(elsewhere)]
    proc = subprocess.run(cmd, cwd=elsewhere, env=os.environ.copy(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert "entries missing or not as pinned" not in out, out[-3000:]  # the DAG's report of absent data
    counts = dict(re.findall(r"^(\w+)\s+(\d+)\s*$", proc.stdout, re.M))  # the dry run's job count per rule
    for rule in ("fsmem_answers", "longmemeval_run", "judge_sensitivity", "model_fsmem_answers"):
        assert int(counts.get(rule, 0)) >= 1, (rule, sorted(counts))
