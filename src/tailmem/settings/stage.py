"""What a stage function receives: `StageSettings`, the typed objects of the config groups it reads.

Why: a stage that reads `cfg.x.y` from a DictConfig sees no type and can read a group its registry entry does not
list, which the rerun digest then misses. Here each listed group is its typed object (the group's dataclass, the
runtime `LLMSettings` for `llm`, `GraphSettings` and `MemorySettings` for the open groups), built when the stage
first reads it, and reading an unlisted group fails naming the stage and the group. The composed config stays in
`composed` for what needs the config as composed: the provenance (config.yaml, the config digest) and the folder
names the DAG derives from the same config.

The groups' schemas are named here as strings (`SCHEMAS`), not imported: a stage's code digest follows its static
imports (tailmem.source_closure), and importing every schema would put every registry the checks consult (each
controller, each harness) into every stage's digest. Nothing the modules named here import reads this one (the
composed config behind typed settings is `checks.composed`), so naming them closes no import loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from tailmem.errors import ConfigError
from tailmem.settings.checks import ComposedView, Unread


@dataclass(frozen=True)
class GraphSettings:
    """The `graph` group: the family, its size and the family's keys (checked where a world is built,
    `graphworld.families.check_graph_config`: a stage that only names folders needs no complete family)."""

    family: str | None
    n: int | None
    params: dict[str, Any] = field(default_factory=dict)

    def mapping(self) -> dict[str, Any]:
        """The group as composed, as the family's builder reads it."""
        head = {k: v for k, v in (("family", self.family), ("n", self.n)) if v is not None}
        return {**head, **self.params}


@dataclass(frozen=True)
class MemorySettings:
    """The `memory` group: the controller's name and table label, and every key as `make_controller` takes it."""

    name: str
    label: str
    settings: dict[str, Any] = field(default_factory=dict)


# group -> (module, dataclass) of its schema (tailmem.settings.schema.Settings; tests/test_stage_settings.py
# checks the two agree). `seed`, `graph`, `memory` and `llm` are built by `_group` itself.
SCHEMAS = {
    "rollout": ("tailmem.settings.rollout", "RolloutGroup"),
    "policy": ("tailmem.settings.rollout", "PolicyGroup"),  # the config group, not the role
    "retrieval": ("tailmem.settings.rollout", "RetrievalGroup"),
    "control": ("tailmem.settings.control", "ControlGroup"),
    "model_roles": ("tailmem.settings.control", "ModelRolesGroup"),
    "judges": ("tailmem.settings.judges", "JudgesGroup"),
    "audit": ("tailmem.settings.audit", "AuditSettings"),
    "audit_log": ("tailmem.settings.audit_log", "AuditLogGroup"),
    "stats": ("tailmem.settings.stats", "StatsGroup"),
    "fsmem": ("tailmem.settings.fsmem", "FsmemGroup"),
    "alfworld": ("tailmem.settings.alfworld", "AlfworldGroup"),
    "longmemeval": ("tailmem.settings.longmemeval", "LongMemEvalGroup"),
    "calibration": ("tailmem.settings.calibration", "CalibrationGroup"),
    "scale": ("tailmem.settings.scale", "ScaleGroup"),
}
GROUPS = ("seed", "graph", "memory", "llm", *SCHEMAS)


def _group(cfg, name: str):
    """The typed object of group `name` of the composed config `cfg`."""
    import importlib

    from omegaconf import OmegaConf

    if name == "seed":
        return int(cfg.seed)
    if name == "llm":
        return importlib.import_module("tailmem.llm.settings").read_settings(cfg)
    if name == "graph":
        spec = OmegaConf.to_container(cfg.graph, resolve=True)
        return GraphSettings(spec.pop("family", None), spec.pop("n", None), spec)
    if name == "memory":
        spec = OmegaConf.to_container(cfg.memory, resolve=True)
        return MemorySettings(str(spec.get("name")), str(spec.get("label", spec.get("name"))), spec)
    from tailmem.settings.checks import typed

    module, cls = SCHEMAS[name]
    return typed(cfg, name, getattr(importlib.import_module(module), cls))


class StageSettings(ComposedView):
    """The top-level keys and, as attributes, the typed object of every group in `groups` (built on first read;
    a group not in `groups` is `Unread`). `composed` is the config it came from."""

    def __init__(self, stage: str, groups: tuple[str, ...], composed):
        self.stage, self.groups, self.composed = stage, groups, composed
        self.data_dir = None if composed.get("data_dir") is None else str(composed.data_dir)
        self.results_dir = None if composed.get("results_dir") is None else str(composed.results_dir)
        self.figures_dir = None if composed.get("figures_dir") is None else str(composed.figures_dir)
        self.out = None if composed.get("out") is None else str(composed.out)
        self.input = None if composed.get("input") is None else str(composed.input)

    def __getattr__(self, name: str):
        if name not in GROUPS:
            raise AttributeError(f"{type(self).__name__} has no {name!r}; config groups: {list(GROUPS)}")
        value = (
            _group(self.composed, name) if name in self.groups and name in self.composed else Unread(self.stage, name)
        )
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"StageSettings(stage={self.stage!r}, groups={list(self.groups)})"


def for_stage(cfg, stage: str, groups: Iterable[str]) -> StageSettings:
    """The typed settings a stage reads from the composed config `cfg` (validated: tailmem.settings.schema)."""
    if isinstance(cfg, StageSettings):
        return cfg
    listed = tuple(groups)
    unknown = sorted(set(listed) - set(GROUPS))
    if unknown:
        raise ConfigError(f"stage {stage}: unknown config group(s) {unknown}; expected some of {list(GROUPS)}")
    return StageSettings(stage, listed, cfg)
