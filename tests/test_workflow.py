"""The Snakemake-Hydra glue: config composition, override routing, and the smoke DAG end to end (the session's
shared run, tests/smoke_run.py)."""

import pandas as pd
import pytest

import smoke_run
from tailmem.errors import ConfigError
from tailmem.graph_runs import random_walk_runs
from tailmem.workflow import compose_config, override_key, stage_overrides


def test_compose_smoke_scale_sets_lengths_and_folders():
    cfg = compose_config("smoke")
    assert cfg.scale.name == "smoke"
    assert cfg.results_dir == "results/smoke"
    assert cfg.audit.bootstrap == 50


def test_compose_rejects_a_typo_with_its_key():
    with pytest.raises(ConfigError, match="rollout.stepz"):
        compose_config("smoke", ["rollout.stepz=3"])
    with pytest.raises(ConfigError, match="nosuchscale"):
        compose_config("nosuchscale")


def test_overrides_reach_only_the_stages_that_read_them():
    ov = ["rollout.steps=7", "+audit.extra=1", "graph.degree=6", "results_dir=/tmp/x"]
    assert override_key("+audit.extra=1") == "audit.extra"
    assert stage_overrides(ov, ["audit"]) == ["+audit.extra=1", "results_dir=/tmp/x"]
    assert stage_overrides(ov, ["rollout", "retrieval"]) == ["rollout.steps=7", "results_dir=/tmp/x"]


def test_run_enumeration_has_no_duplicates_and_covers_every_design():
    cfg = compose_config("smoke")
    runs = random_walk_runs(cfg)
    assert len(runs) == len(set(runs))
    assert {r.retrieval for r in runs} == set(cfg.scale.retrieval_designs)


@pytest.mark.slow
def test_smoke_dag_end_to_end(smoke):
    """The session's smoke run (tests/smoke_run.py) finished every target, the model slice's included."""
    tables = smoke.workdir / "results" / "smoke" / "tables"
    for stem in (
        "table2_random_walk_sigma_top10",
        "table7_random_walk_concentration",
        "table8_retrieval_designs",
        "table3_tail_audit_random_walk",
        "claims_random_walk",
    ):
        assert (tables / f"{stem}.csv").stat().st_size > 0
        assert (tables / f"{stem}.md").read_text().startswith("# ")
    for stem in ("fig3_ccdf_random_walk", "fig5_concentration_random_walk"):
        assert (smoke.workdir / "figures" / "smoke" / f"{stem}.png").stat().st_size > 1000
    # ALFWorld's 6-game smoke subset (one game per family) is part of the same DAG
    mem = pd.read_csv(tables / "alfworld_smoke_memory.csv")
    skills = pd.read_csv(tables / "alfworld_smoke_skills.csv")
    assert set(mem.arm) >= {"graph_memory", "ctmc"} and (mem.games == 6).all()
    assert len(skills) == 10 and (skills.tasks == 6).all() and (skills.leakage == "no").all()
    # the model slice (scale.model_slice: smoke_model): the embedded model played every role, named in the rows
    model = smoke.workdir / "results" / "smoke" / "model" / "tables"
    roles = pd.read_csv(model / "model_roles.csv")
    assert {"searcher", "builder", "predictor", "judge"} <= set(roles.role)
    judge = roles[roles.figure.str.startswith("agreement")].iloc[0]
    assert judge["items"] >= 2 and judge["verdict"] in ("ok", "below floor")
    locomo = pd.read_csv(model / "locomo_conv-50.csv")
    assert set(locomo.searcher) == {"qwen2.5-coder-1.5b-instruct-q4_k_m"} and (locomo.n >= 1).all()
    claims = pd.read_csv(model / "model_claims.csv")
    assert {"claims_ctmc", "claims_fsmem", "claims_random_walk"} <= set(claims.table)
    assert "predictor" in set(claims[claims.table == "claims_ctmc"].roles.str.split(", ").sum())
    # the slice runs one claim pair and the tau arm (scale.control.arms: first_claim): Table 6 has the row it ran
    ablation = pd.read_csv(model / "table6_allocation_ablation.csv")
    assert list(ablation.allocation) == ["CTMC (tau=1)"] and (ablation.runs == 1).all()
    # with the data, every benchmark's rules ran (a clone without it: the test below), and no fetch was asked for
    assert {"fsmem_store", "longmemeval_run", "alfworld_games", "fsmem_table", "fsmem_table13"} <= set(smoke.rules())
    assert "python -m tailmem data" not in smoke.output()
    print(f"smoke DAG: {smoke.seconds:.1f} s")


@pytest.mark.slow
def test_a_finished_smoke_run_has_nothing_to_do(smoke, repo_root, data_dir):
    again = smoke_run.snakemake(smoke.workdir, repo_root, data_dir, "--dry-run")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.slow
def test_an_audit_value_reruns_the_audits_and_tables_never_the_worlds_or_rollouts(smoke, repo_root, data_dir):
    changed = smoke_run.snakemake(smoke.workdir, repo_root, data_dir, "--dry-run", overrides=["audit.bootstrap=20"])
    out = changed.stdout + changed.stderr
    assert changed.returncode == 0, out[-2000:]
    assert "audit" in out and "tables_random_walk" in out
    assert "rule graphworld" not in out and "rule rollout" not in out


def test_graph_overrides_reach_only_families_that_have_the_key():
    ov = ["graph.degree=6", "graph=modular", "graph.n=50"]
    assert stage_overrides(ov, ["graph"], family="uniform") == ["graph.degree=6"]
    assert stage_overrides(ov, ["graph"], family="scale_free") == []
    with pytest.raises(ConfigError, match="graph.family"):
        stage_overrides(ov, ["graph"], family="nope")


@pytest.mark.slow
def test_a_clone_without_benchmark_data_still_runs_the_graph_world(tmp_path, repo_root):
    """Issue 16: one message listing what is missing and the fetch command; the DAG keeps the graph-world jobs."""
    empty = tmp_path / "no-data"
    empty.mkdir()
    run = smoke_run.snakemake(tmp_path / "work", repo_root, empty, "-n", "--quiet", "rules")
    assert run.returncode == 0, run.stderr[-3000:]
    text = run.stdout + run.stderr
    assert text.count("python -m tailmem data") == 1
    assert "locomo/locomo10.json" in text and "longmemeval/longmemeval_oracle.json" in text
    scheduled = {line.split()[0] for line in run.stdout.splitlines() if line.strip()}
    assert {"graphworld", "rollout", "audit", "control", "tables_random_walk"} <= scheduled
    assert not scheduled & {"fsmem_store", "longmemeval_run", "alfworld_games", "fsmem_table"}, scheduled
