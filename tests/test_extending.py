"""The recipes of docs/extending.md, followed for a toy memory controller and a toy tool harness.

A controller is a class registered in `memory.controllers.CONTROLLERS` plus `configs/memory/<name>.yaml`
(2 files); it then joins Table 4's arms and the DAG without any other edit. A harness is a factory registered in
`fsmem.harnesses` (plus the module of its tools); its name then passes the config check and matches the rules.
"""

import json
import shutil
from dataclasses import dataclass

import pytest

from tailmem import cli
from tailmem.memory import controllers
from tailmem.memory.render import greedy_items


@dataclass
class OldestFirst(controllers.Controller):
    """Toy controller: the `k` items first stored, whatever the query (a deliberately poor retrieval rule)."""

    k: int = 3
    name = "toy_oldest"

    def build(self, store, query, counter):
        chosen = [store.items[i] for i in list(store.items)[: self.k]]
        return greedy_items(chosen, self.encoding, counter, self.budget, self.name)


@pytest.fixture
def toy_configs(tmp_path, repo_root, monkeypatch):
    configs = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", configs)
    (configs / "memory" / "toy_oldest.yaml").write_text(
        "# Toy: the k items first stored.\nname: toy_oldest\nlabel: Toy Oldest\nencoding: compact\nk: 3\nbudget: 160\n")
    monkeypatch.setenv("TAILMEM_CONFIGS", str(configs))
    monkeypatch.setitem(controllers.CONTROLLERS, "toy_oldest", OldestFirst)
    return configs


def _stage(*args) -> None:
    assert cli.main(list(args)) == 0, args


def test_a_toy_controller_joins_table_4_and_runs_through_the_control_stage(toy_configs, tmp_path):
    from tailmem.control import arms
    from tailmem.workflow import Dag

    assert "toy_oldest-compact" in arms.table4_arms()
    assert arms.overrides("toy_oldest-compact") == ["memory=toy_oldest", "memory.encoding=compact"]
    results = tmp_path / "results"
    run = ["scale=smoke", "graph=modular", "graph.n=30", "seed=0", f"results_dir={results}"]
    policy = ["policy=semantic", "retrieval=recency"]
    _stage("graphworld", *run)
    _stage("rollout", *run, *policy)
    _stage("control", *run, *policy, "memory=toy_oldest", "control.arm=toy_oldest-compact")
    summary = json.loads(next(results.rglob("toy_oldest-compact/summary.json")).read_text())
    assert summary["arm"] == "toy_oldest-compact" and summary["steps"] > 0
    # The DAG gives the new arm its own job, with a digest of its own config file.
    dag = Dag("smoke", [f"results_dir={results}"])
    job = dag.job("control", ("graph=modular", "graph.n=30", "seed=0", *policy, "memory=toy_oldest"), "modular")
    other = dag.job("control", ("graph=modular", "graph.n=30", "seed=0", *policy, "memory=recency_cache"), "modular")
    assert job.config != other.config
