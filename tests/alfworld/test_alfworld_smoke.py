"""The 6-game smoke DAG end to end (one game per family): tables exist and say how many games ran."""

import subprocess

import pandas as pd
import pytest

pytest.importorskip("alfworld")


@pytest.mark.slow
def test_alfworld_smoke_dag(repo_root, tmp_path):
    res = tmp_path / "results"
    cmd = ["snakemake", "--cores", "2", "alfworld_smoke", "--config", "scale=smoke",
           f"overrides=[results_dir={res},figures_dir={tmp_path / 'figures'}]"]
    subprocess.run(cmd, cwd=repo_root, check=True, capture_output=True, timeout=1800)
    mem = pd.read_csv(res / "tables" / "alfworld_smoke_memory.csv")
    skills = pd.read_csv(res / "tables" / "alfworld_smoke_skills.csv")
    assert set(mem.arm) >= {"graph_memory", "ctmc"} and (mem.games == 6).all()
    assert len(skills) == 10 and (skills.tasks == 6).all() and (skills.leakage == "no").all()
