"""Stages receive typed settings: the typed object of each group, not a DictConfig."""

import dataclasses
import functools
import typing

import pytest
from omegaconf import DictConfig

from tailmem import registry
from tailmem.errors import ConfigError
from tailmem.runner import compose_stage
from tailmem.settings import schema
from tailmem.settings.llm import LLMGroup
from tailmem.settings.stage_settings import (
    GraphSettings,
    MemorySettings,
    StageSettings,
    for_stage,
    known_groups,
    schemas,
)

BUILT_HERE = {"seed": int, "graph": GraphSettings, "memory": MemorySettings, "llm": LLMGroup}


@functools.cache
def smoke_config(name: str):
    """A stage's config at the smoke scale, composed once for the two tests per stage that read it (a Hydra
    composition is about 0.3 s; the two tests' 2 x 45 compositions were 40 s of the suite)."""
    return compose_stage(name, ["scale=smoke"])


def test_the_groups_are_the_settings_dataclass_own():
    """A stage's groups are `Settings`' fields (and `seed`), each typed by the dataclass `Settings` gives it."""
    hints = typing.get_type_hints(schema.Settings)
    groups = {f.name for f in dataclasses.fields(schema.Settings)} - set(schema.TOP_KEYS)
    assert set(known_groups()) - {"seed"} == groups  # seed is a top-level key a stage may list
    assert set(schemas()) == groups - set(BUILT_HERE)
    for group, cls in schemas().items():
        assert cls is hints[group], group


def test_every_stage_is_declared_by_one_study_and_names_a_function_in_its_folder():
    """Each study's `STAGES` hold its own stages: no name twice, and each function lives in the study's folder."""
    names = [name for study in registry.STUDIES for name in study.STAGES]
    assert len(names) == len(set(names))
    for study in registry.STUDIES:
        for entry in study.STAGES.values():
            assert entry.module.startswith(study.__name__ + "."), (study.__name__, entry.target)


@pytest.mark.parametrize("name", sorted(registry.STAGES))
def test_every_stage_reads_each_of_its_groups_as_a_typed_object(name):
    """Each registered stage is wrapped under its own name, and every group its entry lists comes out typed, never
    a DictConfig."""
    entry = registry.STAGES[name]
    assert getattr(entry.function(), "stage", None) == name, f"{entry.target} is not a @typed_stage({name!r})"
    s = for_stage(smoke_config(name), name, entry.groups)
    for group in entry.groups:
        value = getattr(s, group)
        assert not isinstance(value, DictConfig), (name, group)
        want = BUILT_HERE.get(group)
        if want is None:
            assert type(value) is schemas()[group], (name, group, type(value))
        else:
            assert isinstance(value, want), (name, group, type(value))


def test_a_group_the_registry_does_not_list_is_refused_by_name():
    """Reading it would change the stage's output without changing its config digest."""
    s = for_stage(compose_stage("graphworld", ["scale=smoke"]), "graphworld", registry.STAGES["graphworld"].groups)
    assert s.graph.family and s.seed == 0
    with pytest.raises(ConfigError, match=r"stage graphworld reads fsmem\.variant.*does not list the 'fsmem'"):
        _ = s.fsmem.variant


def test_a_stage_called_with_a_composed_config_gets_stage_settings(monkeypatch):
    """Tests and the CLI pass a composed config; the stage body sees StageSettings with the same values."""
    from tailmem.studies.random_walk import graphworld

    seen = {}
    monkeypatch.setattr(graphworld, "make_world", lambda cfg: seen.setdefault("cfg", cfg) and 1 / 0)
    cfg = compose_stage("graphworld", ["scale=smoke", "graph=modular", "graph.n=40", "seed=3"])
    with pytest.raises(ZeroDivisionError):
        graphworld.run(cfg)
    s = seen["cfg"]
    assert isinstance(s, StageSettings) and s.composed is cfg
    assert (s.graph.family, s.graph.n, s.seed) == ("modular", 40, 3)
    assert s.graph.mapping() == {k: v for k, v in cfg.graph.items()}


@pytest.mark.parametrize("name", ["alfworld_memory", "alfworld_skills"])
def test_the_alfworld_episode_stages_rerun_when_the_seed_changes(name):
    """Found by the typed settings on the default DAG: these stages seed their controllers with `seed`
    (make_controller) but did not list it, so `seed=1` reran nothing."""
    stage = registry.STAGES[name]
    digests = {stage.config_digest(compose_stage(name, ["scale=smoke", f"seed={s}"])) for s in (0, 1)}
    assert len(digests) == 2


def test_the_alfworld_report_reruns_when_the_interval_settings_change():
    """Found by the typed settings: the report draws its intervals with the `stats` group, which it did not list."""
    stage = registry.STAGES["alfworld_report"]
    digests = {
        stage.config_digest(compose_stage("alfworld_report", ["scale=smoke", f"stats.seed={s}"])) for s in (0, 1)
    }
    assert len(digests) == 2


def test_a_typed_read_of_an_unlisted_group_names_the_stage():
    """Library code reading a whole group (stats.group.settings(cfg), say) gets the same clear refusal."""
    from tailmem.settings.checks import typed
    from tailmem.settings.stats import StatsGroup

    s = for_stage(compose_stage("alfworld_games", ["scale=smoke"]), "alfworld_games", ("alfworld", "llm"))
    with pytest.raises(ConfigError, match="stage alfworld_games reads the stats group"):
        typed(s, "stats", StatsGroup)


@pytest.mark.parametrize("name", sorted(registry.STAGES))
def test_a_stage_s_typed_settings_have_the_digest_of_the_config_they_came_from(name):
    """Found by CI on the smoke DAG: the site stage digested the StageSettings it was handed (`.get` of a
    DictConfig) and failed. A stage records the digest of the config its settings came from, the one the DAG
    computes for its job."""
    from tailmem.provenance import config_record

    entry = registry.STAGES[name]
    cfg = smoke_config(name)
    s = for_stage(cfg, name, entry.groups, entry.arms)
    assert config_record(s) == (list(entry.groups), entry.config_digest(cfg))
    assert entry.config_digest(s.composed) == entry.config_digest(cfg)


def test_no_function_unwraps_typed_settings():
    """A library function takes one type: the composed config (a stage passes `cfg.composed`) or a stage's
    settings, never either. The helper that unwrapped one into the other is gone, and nothing under src/ defines
    or calls it again."""
    import re
    from pathlib import Path

    from tailmem.settings import checks

    assert not hasattr(checks, "composed") and not hasattr(checks, "ComposedView")
    src = Path(checks.__file__).resolve().parents[2]
    pattern = re.compile(r"\bdef composed\(|(?<![\w.])composed\(|\bComposedView\b")
    found = [
        f"{path.relative_to(src)}:{i}"
        for path in sorted(src.rglob("*"))
        if path.suffix in (".py", ".smk")
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
