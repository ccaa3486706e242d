"""What a stage function receives: `StageSettings`, the typed objects of the config groups it reads.

Why: a stage that reads `cfg.x.y` from a DictConfig sees no type and can read a group its registry entry does not
list, which the rerun digest then misses. Here each listed group is its typed object (the group's dataclass; for
`llm`, its dataclass with the unset role keys unset, tailmem.settings.llm.read; `GraphSettings` and
`MemorySettings` for the open groups), built when the stage first reads it, and reading an unlisted group fails
naming the stage and the group. The composed config stays in `composed` for what needs the config as composed:
the provenance (config.yaml, the config digest) and the folder names the DAG derives from the same config.

The groups' dataclasses are those of `tailmem.settings.schema.Settings` (`schemas()`), and the schema and the
`llm` group's reader are named here ("module:name", tailmem.lazy.resolve), not imported: a stage's code digest
follows its import statements (tailmem.source_closure), and importing the schema would put every group's schema
(and what their checks import) into every stage's digest, so an edit to one group's checks would rerun them all. Nothing those modules import reads this
one, so naming them closes no import loop.

Library code that reads raw config keys (the provenance's agents, the roles' configured models, the folders the
DAG derives, the digests) takes the composed config itself: a stage hands it `cfg.composed`, so no library
function has to tell typed settings from a config.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Iterable

from tailmem.errors import ConfigError
from tailmem.lazy import resolve
from tailmem.settings.checks import Unread


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


# groups `_group` builds itself; `llm` by its own reader, since OmegaConf refuses to build an object with unset keys
BUILT_HERE = ("seed", "graph", "memory", "llm")


@functools.cache
def schemas() -> dict[str, type]:
    """group -> its dataclass, for every other group: the groups `tailmem.settings.schema.Settings` types with a
    dataclass, in its order. The schema is named, not imported (see the module docstring)."""
    typed = resolve("tailmem.settings.schema:group_dataclasses")()
    return {group: cls for group, cls in typed.items() if group not in BUILT_HERE}


def known_groups() -> tuple[str, ...]:
    """Every group a stage's registry entry may list."""
    return (*BUILT_HERE, *schemas())


def _group(cfg, name: str):
    """The typed object of group `name` of the composed config `cfg`."""
    from omegaconf import OmegaConf

    if name == "seed":
        return int(cfg.seed)
    if name == "llm":
        return resolve("tailmem.settings.llm:read")(cfg)
    if name == "graph":
        spec = OmegaConf.to_container(cfg.graph, resolve=True)
        return GraphSettings(spec.pop("family", None), spec.pop("n", None), spec)
    if name == "memory":
        spec = OmegaConf.to_container(cfg.memory, resolve=True)
        return MemorySettings(str(spec.get("name")), str(spec.get("label", spec.get("name"))), spec)
    from tailmem.settings.checks import typed

    return typed(cfg, name, schemas()[name])


class StageSettings:
    """The top-level keys and, as attributes, the typed object of every group in `groups` (built on first read;
    a group not in `groups` is `Unread`). `composed` is the config it came from."""

    def __init__(self, stage: str, groups: tuple[str, ...], composed, arms: str | None = None):
        self.stage, self.groups, self.composed, self.arms = stage, groups, composed, arms
        self.data_dir = None if composed.get("data_dir") is None else str(composed.data_dir)
        self.results_dir = None if composed.get("results_dir") is None else str(composed.results_dir)
        self.figures_dir = None if composed.get("figures_dir") is None else str(composed.figures_dir)
        self.out = None if composed.get("out") is None else str(composed.out)
        self.input = None if composed.get("input") is None else str(composed.input)

    def __getattr__(self, name: str):
        if name not in known_groups():
            raise AttributeError(f"{type(self).__name__} has no {name!r}; config groups: {list(known_groups())}")
        value = (
            _group(self.composed, name) if name in self.groups and name in self.composed else Unread(self.stage, name)
        )
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"StageSettings(stage={self.stage!r}, groups={list(self.groups)})"


def for_stage(cfg, stage: str, groups: Iterable[str], arms: str | None = None) -> StageSettings:
    """The typed settings a stage reads from the composed config `cfg` (validated: tailmem.settings.schema);
    `arms` as the stage's record gives it (tailmem.stage.Stage), for its config digest."""
    if isinstance(cfg, StageSettings):
        return cfg
    listed = tuple(groups)
    unknown = sorted(set(listed) - set(known_groups()))
    if unknown:
        raise ConfigError(f"stage {stage}: unknown config group(s) {unknown}; expected some of {list(known_groups())}")
    return StageSettings(stage, listed, cfg, arms)
