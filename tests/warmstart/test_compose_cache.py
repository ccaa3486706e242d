"""The kept loads and merged prefixes (tailmem.compose_cache) compose every config node for node as Hydra does,
and an edited config file is read again, never taken from what was kept."""

import shutil

import pytest
from omegaconf import DictConfig, ListConfig

from tailmem import cli, compose_cache
from tailmem.runner import compose_stage

CASES = (
    ("graphworld", ["scale=smoke"]),
    ("control", ["scale=smoke", "graph=modular", "memory=ctmc", "policy=semantic", "seed=4", "memory.budget=90"]),
    ("rollout", ["scale=default", "llm=embedded", "graph=scale_free", "rollout.steps=7"]),
    ("audit", ["scale=smoke_model", "retrieval=none", "+memory.skip=1"]),
)


def assert_same_nodes(a, b, where="cfg") -> None:
    """Same node types, metadata (flags, types; the `now` resolver's cache aside) and values, keys in order."""
    assert type(a) is type(b), where
    meta_a, meta_b = dict(vars(a._metadata)), dict(vars(b._metadata))
    meta_a.pop("resolver_cache", None), meta_b.pop("resolver_cache", None)
    assert meta_a == meta_b, where
    if isinstance(a, (DictConfig, ListConfig)) and not (a._is_missing() or a._is_none() or a._is_interpolation()):
        keys = list(a.keys()) if isinstance(a, DictConfig) else list(range(len(a)))
        assert keys == (list(b.keys()) if isinstance(b, DictConfig) else list(range(len(b)))), where
        for k in keys:
            assert_same_nodes(a._get_node(k), b._get_node(k), f"{where}.{k}")
    else:
        assert type(a._value()) is type(b._value()) and a._value() == b._value(), where


def plain(stage, overrides):
    """Hydra's own composition, with nothing kept."""
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir

    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(config_name="config", overrides=[*overrides, f"stage={stage}"])


@pytest.fixture
def fresh():
    compose_cache.clear()
    yield
    compose_cache.clear()


def test_compositions_from_kept_loads_and_prefixes_equal_hydra_s_own(fresh):
    with compose_cache.learning():  # the first two cases' prefixes kept; the others share only some of them
        for stage, overrides in CASES[:2]:
            compose_stage(stage, overrides)
    assert compose_cache._prefixes and compose_cache._loads
    for stage, overrides in CASES:
        assert_same_nodes(compose_stage(stage, overrides), plain(stage, overrides))
        assert_same_nodes(compose_stage(stage, overrides), plain(stage, overrides))  # from a copy, not the kept one


def test_a_process_keeps_prefixes_from_its_second_composition_on(fresh):
    compose_stage("audit", ["scale=smoke"])  # a stage job's one composition: nothing kept for later
    assert not compose_cache._prefixes
    compose_stage("audit", ["scale=smoke"])
    assert compose_cache._prefixes


def test_an_edited_config_file_is_read_again(fresh, tmp_path, repo_root, monkeypatch):
    configs = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", configs)
    monkeypatch.setenv("TAILMEM_CONFIGS", str(configs))
    with compose_cache.learning():
        before = compose_stage("audit", ["scale=smoke"])
    memory = configs / "memory" / "graph_memory.yaml"  # a group merged before the scale: a kept prefix holds it
    text = memory.read_text()
    assert "budget:" in text
    memory.write_text(text.replace("budget:", "budget: 77 #", 1))
    after = compose_stage("audit", ["scale=smoke"])
    assert before.memory.budget != 77 and after.memory.budget == 77
    assert_same_nodes(after, plain("audit", ["scale=smoke"]))


def test_the_server_learns_a_job_s_group_choices_once(fresh, monkeypatch):
    composed = []
    monkeypatch.setattr(cli, "compose_stage", lambda stage, overrides: composed.append((stage, overrides)))
    monkeypatch.setattr(cli, "_LEARNED", set())
    cli.learn(["audit", "scale=smoke", "graph=modular", "graph.n=60", "seed=3", "memory=ctmc", "+memory.skip=1"])
    cli.learn(["audit", "scale=smoke", "graph=modular", "graph.n=30", "seed=1", "memory=ctmc"])
    cli.learn(["cache", "scale=smoke"])  # a command, not a stage
    cli.learn(["audit", "--cfg", "job"])  # a Hydra flag: run under hydra.main
    assert composed == [("audit", ["scale=smoke", "graph=modular", "memory=ctmc"])]
