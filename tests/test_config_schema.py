"""The settings schema (tailmem.settings): every key of every config group is a typed field of a dataclass; a bad
value or an unknown key fails when the DAG is composed, with one line naming the key (issue 12, findings 3 and 6;
issue 30: Hydra's structured configs are the schema)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tailmem.configs import config_dir
from tailmem.errors import ConfigError
from tailmem.settings.schema import Settings
from tailmem.validation import errors, known_keys
from tailmem.workflow import compose_config

REPO = Path(__file__).resolve().parents[1]
GROUPS = sorted(p.name for p in config_dir().iterdir() if p.is_dir() and any(p.glob("*.yaml")))
OPTIONS = [(g, p.stem) for g in GROUPS for p in sorted((config_dir() / g).glob("*.yaml"))]


def _compose(overrides: tuple[str, ...], stage: str = "workflow"):
    """The composed config (Hydra and the schema's types only, no range check)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
            return compose(config_name="config", overrides=[*overrides, f"stage={stage}"])
    finally:
        GlobalHydra.instance().clear()


@pytest.mark.parametrize("group,option", OPTIONS)
def test_shipped_option_is_valid(group, option):
    """Every shipped option composes into the schema (no key outside its dataclass) and passes its ranges."""
    assert errors(_compose((f"{group}={option}",))) == []


def test_every_config_group_has_a_field_in_the_schema():
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert set(GROUPS) - {"prompts"} <= fields


def test_a_value_of_the_wrong_type_is_refused_by_hydra_while_composing():
    """OmegaConf's own check (not ours): the typed node refuses the value before any range check runs."""
    from hydra.errors import HydraException
    from omegaconf.errors import ValidationError

    with pytest.raises(HydraException) as info:
        _compose(("audit.bootstrap=many",))
    assert isinstance(info.value.__cause__, ValidationError) or "could not be converted" in str(info.value)


def test_a_missing_key_is_named():
    """A key removed from its YAML is reported as missing, naming it."""
    from omegaconf import MISSING

    cfg = _compose(())
    cfg.rollout.steps = MISSING
    cfg.audit.min_tail = MISSING
    lines = errors(cfg)
    assert any(line.startswith("rollout.steps: missing") for line in lines), lines
    assert any(line.startswith("audit.min_tail: missing") for line in lines), lines


def test_controller_keys_are_the_controllers_fields():
    """The memory group's keys come from the controllers' own dataclasses (one list, in the registry)."""
    from tailmem.memory.controllers import CONTROLLERS
    from tailmem.memory.group import known_keys as memory_keys
    from tailmem.settings.fsmem import ACCESS_UNITS
    from tailmem.studies.fsmem.access import UNITS

    controller_fields = {f for c in CONTROLLERS.values() for f in c.__dataclass_fields__ if not f.startswith("_")}
    assert set(memory_keys()) == controller_fields | {"name", "label"}
    assert {k.split(".", 1)[1] for k in known_keys() if k.startswith("memory.")} == set(memory_keys())
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
    ("scale.seeds=[abc]", "scale.seeds[0]", "'abc'"),  # Hydra's key: the list item
    ("scale.sizes=[-5]", "scale.sizes", "[-5]"),
    ("scale.control.contrast_size=5", "scale.control.contrast_size", "5"),  # the tail contrast's own worlds
    ("scale.control.contrast_seeds=[-1]", "scale.control.contrast_seeds", "[-1]"),
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
        "rollout.steps=zero": "an integer",  # a type: Hydra's check (the range needs an integer first)
        "scale.sizes=[-5]": "an integer >= 10",
        "longmemeval.tau=-1": "a number >= 0",
        "llm.timeout_s=-1": "a number > 0",
        "llm.budget.max_dollars=-1": "a number >= 0 or null",
        "scale.families=[]": "got an empty list",
    }
    for override, text in expected.items():
        with pytest.raises(ConfigError, match=text.replace("[", r"\[")):
            compose_config("smoke", [override])


def test_all_range_errors_are_reported_together():
    """Hydra stops at the first wrong type; every range error and unknown appended key after it comes in one go."""
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", ["rollout.steps=0", "llm.retries=-1", "fsmem.retrieval_k=0", "+graph.nn=200"])
    lines = str(info.value).splitlines()
    assert sorted(line.split("=", 1)[0].split(":", 1)[0] for line in lines) == [
        "fsmem.retrieval_k",
        "graph.nn",
        "llm.retries",
        "rollout.steps",
    ]


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


def test_a_group_read_from_plain_data_is_checked_by_its_schema():
    from omegaconf import OmegaConf

    from tailmem.settings.audit import settings

    group = {
        "bootstrap": 50,
        "top_fraction": 0.1,
        "gof_threshold": 0.1,
        "tpl_alpha_max": 10.0,
        "pl_alpha_max": 10.0,
        "min_tail": 50,
    }
    assert settings(OmegaConf.create({"audit": group})).bootstrap == 50
    with pytest.raises(ConfigError, match=r"^audit\.top_fraction=1\.5: expected a number in \(0, 1\)$"):
        settings({"audit": {**group, "top_fraction": 1.5}})
    with pytest.raises(ConfigError, match=r"^audit\.gof_threshold=None: expected a value, not null \(Hydra: .*float"):
        settings({"audit": {**group, "gof_threshold": None}})
    with pytest.raises(ConfigError, match=r"^audit\.bootstrap='x': expected an integer"):
        settings({"audit": {**group, "bootstrap": "x"}})


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
    with pytest.raises(
        ConfigError, match=r"^fsmem\.shell\.timeout: unknown key; did you mean fsmem\.shell\.timeout_s\?$"
    ):
        compose_config("smoke", ["+fsmem.shell.timeout=3"])


def test_finding6_a_stage_refuses_a_key_of_another_graph_family():
    """At stage time the family is known: scale_free's `m` on a uniform world would be silently ignored."""
    assert errors(_compose(("+graph.m=3",), stage="graphworld")) == [
        "graph.m: not a key of graph family 'uniform' (its keys: graph.family, graph.n, "
        "graph.degree); it is a key of scale_free"
    ]
    assert errors(_compose(("graph=scale_free", "graph.m=3"), stage="graphworld")) == []


def _tailmem(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run(
        [sys.executable, "-m", "tailmem", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


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
    known = _tailmem("graphworld", "graph.m=3", f"out={out}", cwd=tmp_path)  # a family's key the option lacks
    assert (
        known.returncode != 0
        and "graph.m: not a key of the chosen graph option; to add it, write +graph.m=3" in known.stdout + known.stderr
    )


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
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(tmp_path),
            "-n",
            "--config",
            "scale=smoke",
            'overrides=["rollout.steps=zero"]',
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    elapsed = time.monotonic() - started
    text = run.stdout + run.stderr
    assert run.returncode != 0
    assert "rollout.steps='zero': expected an integer" in text
    assert elapsed < 60, f"dry run took {elapsed:.1f} s"
    assert not (tmp_path / "results").exists()


def test_an_unknown_option_of_a_group_is_one_line_naming_the_options():
    """Tried from outside: `graph=ringg` said only Hydra's first line ("Could not find 'graph/ringg'"); the
    options Hydra lists further down are the newcomer's answer."""
    with pytest.raises(ConfigError) as info:
        compose_config("smoke", ["graph=ringg"])
    lines = str(info.value).splitlines()
    assert len(lines) == 1, lines
    shipped = sorted(p.stem for p in (config_dir() / "graph").glob("*.yaml"))
    assert lines[0] == f"graph=ringg: no such option of group graph; options: {', '.join(shipped)}"
