"""The config schema: every key of every config group has a typed reader; a bad value or an unknown key fails
when the DAG is composed, with one line naming the key (issue 12, findings 3 and 6)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path

import pytest

from tailmem.cli import config_dir
from tailmem.config_schema import MEMORY, ROLE, errors, leaves, required, rule_for
from tailmem.errors import ConfigError
from tailmem.workflow import compose_config

REPO = Path(__file__).resolve().parents[1]
GROUPS = sorted(p.name for p in config_dir().iterdir() if p.is_dir() and any(p.glob("*.yaml")))
OPTIONS = [(g, p.stem) for g in GROUPS for p in sorted((config_dir() / g).glob("*.yaml"))]
_COMPOSED: dict[tuple, dict] = {}


def _compose(overrides: tuple[str, ...], stage: str = "workflow") -> dict:
    """The resolved config as a plain dict, composed by Hydra alone (no schema), cached per overrides."""
    key = (*overrides, stage)
    if key not in _COMPOSED:
        from hydra import compose, initialize_config_dir
        from hydra.core.global_hydra import GlobalHydra
        from omegaconf import OmegaConf

        GlobalHydra.instance().clear()
        try:
            with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
                cfg = compose(config_name="config", overrides=[*overrides, f"stage={stage}"])
        finally:
            GlobalHydra.instance().clear()
        _COMPOSED[key] = OmegaConf.to_container(cfg, resolve=True)
    return copy.deepcopy(_COMPOSED[key])


def _set(tree: dict, path: tuple, value) -> dict:
    node = tree
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return tree


# Lists that may be empty: no model family patterns = every model `standard` (tailmem.llm.params); no harness study
# (the smoke model slice leaves the Center vs Center+BM25 pair to the default slice).
EMPTY_OK = {"llm.model_families", "fsmem.study.harness_benchmarks"}


def _bad_values(value, key: str = "") -> list:
    """Values of a wrong type, and out of range where the key is numeric (no key of ours takes -1); an empty
    list where a list must have items."""
    if isinstance(value, bool):
        return ["yes"]
    if isinstance(value, (int, float)):
        return ["abc", -1]
    if isinstance(value, str):
        return [12345]
    if isinstance(value, list):
        return ["abc", *([] if key in EMPTY_OK else [[]]), *([[_bad_values(value[0])[0]]] if value else [])]
    if isinstance(value, dict):
        return ["abc"]
    return [{"x": 1}]  # null: a mapping is wrong for every nullable key


def _names_key(lines: list[str], key: str) -> bool:
    return any(line.startswith((f"{key}=", f"{key}:", f"{key} ")) for line in lines)


def _group_leaves(group: str, option: str) -> list[tuple[tuple, object]]:
    tree = _compose((f"{group}={option}",))
    prefix = () if group == "scale" else (group,)  # scale options are @package _global_: they set several groups
    keys = {k for k, _ in leaves(_compose(()))} if group == "scale" else set()
    out = [(p, v) for p, v in leaves(tree) if p[: len(prefix)] == prefix]
    if group == "scale":  # the keys a scale option sets: scale.*, plus its overrides of other groups
        out = [(p, v) for p, v in out if p[0] == "scale" or p in keys]
    return out


@pytest.mark.parametrize("group,option", OPTIONS)
def test_shipped_option_is_valid_and_every_key_has_a_rule(group, option):
    """Every leaf key of every option has a schema entry (a new key cannot be added without a rule), and the
    shipped values pass their rules."""
    tree = _compose((f"{group}={option}",))
    missing = [".".join(map(str, p)) for p, _ in leaves(tree) if rule_for(p) is None]
    assert missing == [], f"keys without a rule in tailmem.config_schema: {missing}"
    assert errors(tree) == []


@pytest.mark.slow
@pytest.mark.parametrize("group,option", OPTIONS)
def test_every_key_with_a_bad_value_is_named(group, option):
    """Each key of the option, set to a value of the wrong type or out of range, fails naming that key."""
    walked = 0
    for path, value in _group_leaves(group, option):
        key = ".".join(map(str, path))
        for bad in _bad_values(value, key):
            tree = _set(_compose((f"{group}={option}",)), path, bad)
            lines = errors(tree)
            assert _names_key(lines, key), f"{key}={bad!r} not reported; got {lines}"
            walked += 1
    assert walked > 0


def test_the_walk_covers_every_group_and_every_key_kind():
    seen = {g for g, o in OPTIONS for _ in _group_leaves(g, o)}
    assert seen == set(GROUPS) - {"prompts"}
    assert {"graph", "policy", "retrieval", "audit", "memory", "llm", "fsmem", "alfworld", "longmemeval", "scale"} <= seen


def test_top_level_keys_with_bad_values_are_named():
    for path, value in leaves(_compose(())):
        if path[0] not in GROUPS:
            key = ".".join(path)
            for bad in _bad_values(value, key):
                lines = errors(_set(_compose(()), path, bad))
                assert _names_key(lines, key), f"{key}={bad!r} not reported; got {lines}"


def test_a_missing_key_is_named():
    """Every key a config must have, deleted (`~key`, or a key removed from its YAML), is reported as missing."""
    tree = _compose(())
    keys = required()
    for key in keys:
        parts = key.split(".")
        node = tree
        for part in parts[:-1]:
            node = node.get(part, {})
        node.pop(parts[-1], None)
    lines = errors(tree)
    assert len(keys) > 100
    named = {line.split(": missing; expected ", 1)[0] for line in lines if ": missing; expected " in line}
    assert sorted(set(keys) - named) == []


def test_role_and_controller_rules_cover_their_typed_readers():
    """The llm role keys are RoleSettings' fields, the memory keys every controller's fields: one list each."""
    from tailmem.llm.settings import RoleSettings
    from tailmem.memory.controllers import CONTROLLERS

    assert set(ROLE) == {f.name for f in fields(RoleSettings)} - {"role"}
    controller_fields = {f for c in CONTROLLERS.values() for f in c.__dataclass_fields__ if not f.startswith("_")}
    assert controller_fields | {"name", "label"} == set(MEMORY)
    from tailmem.config_schema import ACCESS_UNITS
    from tailmem.stages.fsmem_access import UNITS

    assert tuple(ACCESS_UNITS) == tuple(UNITS)


# ---------------------------------------------------------------- issue 12, finding 3: caught at compose time

FINDING_3 = [
    ("rollout.steps=zero", "rollout.steps", "'zero'"),
    ("audit.bootstrap=-5", "audit.bootstrap", "-5"),
    ("fsmem.retrieval_k=many", "fsmem.retrieval_k", "'many'"),
    ("scale.families=[]", "scale.families", "[]"),
    ("longmemeval.tau=-1", "longmemeval.tau", "-1"),
    ("longmemeval.graph_budget=-100", "longmemeval.graph_budget", "-100"),
    ("llm.retries=-1", "llm.retries", "-1"),
    ("llm.timeout_s=-1", "llm.timeout_s", "-1"),
    ("llm.backoff_s=-1", "llm.backoff_s", "-1"),
    ("llm.budget.max_dollars=abc", "llm.budget.max_dollars", "'abc'"),
    ("llm.budget.max_dollars=-1", "llm.budget.max_dollars", "-1"),
    ("scale.seeds=[abc]", "scale.seeds", "['abc']"),
    ("scale.sizes=[-5]", "scale.sizes", "[-5]"),
]


@pytest.mark.parametrize("override,key,shown", FINDING_3)
def test_finding3_bad_value_fails_at_compose_with_one_line(override, key, shown):
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", [override])
    lines = str(info.value).splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{key}={shown}: "), lines[0]
    assert "expected " in lines[0]


@pytest.mark.slow
def test_finding3_expected_ranges_are_stated():
    expected = {
        "rollout.steps=zero": "an integer >= 1",
        "scale.sizes=[-5]": "an integer >= 10",
        "longmemeval.tau=-1": "a number >= 0",
        "llm.timeout_s=-1": "a number > 0",
        "llm.budget.max_dollars=-1": "a number >= 0 or null",
        "scale.families=[]": "got an empty list",
    }
    for override, text in expected.items():
        with pytest.raises(ConfigError, match=text.replace("[", r"\[")):
            compose_config("smoke", [override])


def test_all_errors_are_reported_together():
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", ["rollout.steps=zero", "llm.retries=-1", "fsmem.retrieval_k=many", "+graph.nn=200"])
    lines = str(info.value).splitlines()
    assert sorted(line.split("=", 1)[0].split(":", 1)[0] for line in lines) == \
        ["fsmem.retrieval_k", "graph.nn", "llm.retries", "rollout.steps"]


@pytest.mark.parametrize("scale", ["smoke", "default", "paper"])
def test_shipped_scales_compose(scale):
    cfg = compose_config(scale)
    assert cfg.scale.name == scale


def test_graph_overrides_are_checked_for_every_family_the_dag_builds():
    """`graph.degree=5` leaves uniform worlds valid but no ring lattice has an odd degree: the DAG's
    baseline_symmetric worlds would fail, so composing fails, naming the key, the family and the size."""
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", ["graph.degree=5"])
    lines = str(info.value).splitlines()
    assert lines and all(line.startswith("graph.degree=5") for line in lines)
    assert "baseline_symmetric" in lines[0]
    compose_config("smoke", ["graph.degree=6"])  # even: valid for every family with a degree
    with pytest.raises(ConfigError, match=r"graph\.m=0: expected .*scale_free"):
        compose_config("smoke", ["+graph.m=0"])  # scale_free's key, appended to the composed uniform option


def test_memory_and_llm_cross_key_rules_come_from_their_readers():
    with pytest.raises(ConfigError, match=r"^memory\.k: not a setting of controller 'graph_memory'"):
        compose_config("smoke", ["+memory.k=3"])
    with pytest.raises(ConfigError, match=r"llm\.roles\.policy\.model is required for backend 'openai'"):
        compose_config("smoke", ["llm.roles.policy.backend=openai"])
    with pytest.raises(ConfigError, match=r"^alfworld\.arms\.ctmc\.tau=-1: expected a number >= 0$"):
        compose_config("smoke", ["+alfworld.arms.ctmc.tau=-1"])


def test_read_is_a_stage_s_typed_reader_of_one_key():
    from omegaconf import OmegaConf

    from tailmem.config_schema import read

    cfg = OmegaConf.create({"audit": {"bootstrap": 50, "top_fraction": 1.5}})
    assert read(cfg, "audit.bootstrap") == 50
    with pytest.raises(ConfigError, match=r"^audit\.top_fraction=1\.5: expected a number in \(0, 1\)$"):
        read(cfg, "audit.top_fraction")
    with pytest.raises(ConfigError, match=r"^audit\.gof_threshold=None: expected a number in \[0, 1\], not null$"):
        read(cfg, "audit.gof_threshold")


def test_an_unresolvable_interpolation_names_its_key():
    with pytest.raises(ConfigError, match=r"^fsmem\.data_file: "):
        compose_config("smoke", ["fsmem.data_file=${nowhere}/x.json"])


# ---------------------------------------------------------------- issue 12, finding 6: unknown keys, even with +

def test_finding6_appended_unknown_key_is_refused_with_the_closest_key():
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", ["+graph.nn=200"])
    assert str(info.value) == "graph.nn: unknown key; did you mean graph.n?"


def test_finding6_unknown_key_without_plus_gets_our_message_not_hydras_hint():
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", ["graph.nn=100"])
    assert str(info.value) == "graph.nn: unknown key; did you mean graph.n?"
    with pytest.raises(ConfigError, match=r"^rollout\.stpes: unknown key; did you mean rollout\.steps\?$"):
        compose_config("smoke", ["+rollout.stpes=3"])
    with pytest.raises(ConfigError, match=r"^fsmem\.shell\.timeout: unknown key; did you mean fsmem\.shell\.timeout_s\?$"):
        compose_config("smoke", ["+fsmem.shell.timeout=3"])


def test_finding6_a_stage_refuses_a_key_of_another_graph_family():
    """At stage time the family is known: scale_free's `m` on a uniform world would be silently ignored."""
    tree = _compose(("+graph.m=3",), stage="graphworld")
    assert errors(tree) == ["graph.m: not a key of graph family 'uniform' (its keys: graph.family, graph.n, "
                            "graph.degree); it is a key of scale_free"]
    assert errors(_compose(("graph=scale_free", "graph.m=3"), stage="graphworld")) == []


def _tailmem(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "tailmem", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_finding6_stage_cli_refuses_unknown_keys_before_any_work(tmp_path):
    out = tmp_path / "world"
    appended = _tailmem("graphworld", "+graph.nn=200", f"out={out}", f"results_dir={tmp_path}", cwd=tmp_path)
    assert appended.returncode != 0
    assert "graph.nn: unknown key; did you mean graph.n?" in appended.stdout + appended.stderr
    assert not out.exists() or not any(out.iterdir())
    plain = _tailmem("graphworld", "graph.nn=100", f"out={out}", cwd=tmp_path)
    assert plain.returncode != 0
    text = plain.stdout + plain.stderr
    assert "graph.nn: unknown key; did you mean graph.n?" in text
    assert "To append to your config" not in text


def test_stage_start_validates_before_the_stage_runs(tmp_path):
    out = tmp_path / "audit"
    run = _tailmem("audit", "audit.bootstrap=-5", f"out={out}", f"input={tmp_path / 'missing'}", cwd=tmp_path)
    assert run.returncode == 1
    text = run.stdout + run.stderr
    assert "audit.bootstrap=-5: expected an integer >= 0" in text
    assert "trace.npz" not in text  # the missing input was never read


# ---------------------------------------------------------------- the DAG: fails in seconds, naming the key

@pytest.mark.slow
def test_snakemake_dry_run_with_a_bad_override_fails_fast_naming_the_key(tmp_path):
    started = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
         "-n", "--config", "scale=smoke", 'overrides=["rollout.steps=zero"]'],
        capture_output=True, text=True, timeout=300,
    )
    elapsed = time.monotonic() - started
    text = run.stdout + run.stderr
    assert run.returncode != 0
    assert "rollout.steps='zero': expected an integer >= 1" in text
    assert elapsed < 60, f"dry run took {elapsed:.1f} s"
    assert not (tmp_path / "results").exists()
