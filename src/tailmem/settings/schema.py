"""The whole config's schema (`Settings`), registered in Hydra's ConfigStore, and the typed objects of its groups.

`configs/config.yaml` lists `tailmem_schema` first in its defaults, so every option Hydra merges is merged into these
typed nodes: a key no dataclass has, or a value of the wrong type, fails at composition. Building the typed objects
(`typed`) runs each dataclass's `__post_init__`, which checks its ranges. The step that checks a composed config
whole (tailmem.validation: Hydra's errors as one line, every group's typed object, and what only a registry above
the settings can tell: the open groups graph and memory, the backends of llm, the registered names) sits above the
library packages whose registries it reads; this module imports none of them. A stage function receives its groups
as typed objects (`tailmem.settings.stage_settings.StageSettings`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from omegaconf import MISSING

from tailmem.settings.alfworld import AlfworldGroup
from tailmem.settings.audit import AuditSettings
from tailmem.settings.audit_log import AuditLogGroup
from tailmem.settings.calibration import CalibrationGroup
from tailmem.settings.control import ControlGroup
from tailmem.settings.fsmem import FsmemGroup
from tailmem.settings.judges import JudgesGroup
from tailmem.settings.llm import LLMGroup
from tailmem.settings.longmemeval import LongMemEvalGroup
from tailmem.settings.model_roles import ModelRolesGroup
from tailmem.settings.power import PowerGroup
from tailmem.settings.rollout import PolicyGroup, RetrievalGroup, RolloutGroup
from tailmem.settings.scale import ScaleGroup
from tailmem.settings.stats import StatsGroup

SCHEMA = "tailmem_schema"  # its name in the ConfigStore (configs/config.yaml's first default)
WORKFLOW = "workflow"  # the `stage` value of the config a DAG is composed from (tailmem.workflow)
OPEN_GROUPS = ("graph", "memory")  # keys owned by a registry (tailmem.graphworld.group, tailmem.memory.group)


@dataclass
class Settings:
    """The top-level keys (configs/config.yaml) and one field per config group."""

    stage: str = MISSING  # set by `python -m tailmem <stage>`
    seed: int = MISSING  # world and rollout seed
    data_dir: str = MISSING
    results_dir: str = MISSING
    figures_dir: str = MISSING
    out: Optional[str] = MISSING  # artifact folder of this stage; null = derived from the config
    input: Optional[str] = MISSING  # input artifact folder of this stage; null = derived from the config
    rollout: RolloutGroup = MISSING
    control: ControlGroup = MISSING
    power: PowerGroup = MISSING
    model_roles: ModelRolesGroup = MISSING
    judges: JudgesGroup = MISSING
    graph: Dict[str, Any] = field(default_factory=dict)
    policy: PolicyGroup = MISSING
    retrieval: RetrievalGroup = MISSING
    audit: AuditSettings = MISSING
    audit_log: AuditLogGroup = MISSING
    stats: StatsGroup = MISSING
    memory: Dict[str, Any] = field(default_factory=dict)
    llm: LLMGroup = MISSING
    fsmem: FsmemGroup = MISSING
    alfworld: AlfworldGroup = MISSING
    longmemeval: LongMemEvalGroup = MISSING
    calibration: CalibrationGroup = MISSING
    scale: ScaleGroup = MISSING


TOP_KEYS = ("stage", "seed", "data_dir", "results_dir", "figures_dir", "out", "input")


CHECKOUT_RESOLVER = "checkout"  # ${checkout:../shared/data} in configs/config.yaml: the default data folder


def from_checkout(path: str) -> str:
    """`path` (relative) taken from the checkout, the folder that holds the config folder (`$TAILMEM_CONFIGS`'s
    parent when that moves the configs), not from the working directory: a workflow run from another folder
    (`snakemake --directory`, a test's workdir) reads the same default data folder. Written relative to the working
    directory, as the workflow's paths are: run from the checkout it is `path` itself, so the rules' inputs and
    commands name no absolute folder and a checkout moved with its results stays finished. An absolute `path` is
    itself."""
    import os

    from tailmem.config_files import config_folder

    if os.path.isabs(path):
        return path
    return os.path.relpath(os.path.normpath(config_folder().parent / path))


def register() -> None:
    """Put `Settings` in Hydra's ConfigStore and the `checkout` resolver the config's paths use in OmegaConf
    (idempotent: the CLI, the workflow and the tests all call it)."""
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    ConfigStore.instance().store(name=SCHEMA, node=Settings)
    OmegaConf.register_new_resolver(CHECKOUT_RESOLVER, from_checkout, replace=True)


def _dataclass_of(cls, name: str):
    import typing

    hint = typing.get_type_hints(cls).get(name)
    return hint if dataclasses.is_dataclass(hint) else None


def group_dataclasses() -> dict[str, type]:
    """group -> its dataclass, for every group `Settings` types with one (all but the open groups `graph` and
    `memory`), in `Settings`' order: what a stage's typed settings build (tailmem.settings.stage_settings)."""
    out = {}
    for f in dataclasses.fields(Settings):
        cls = _dataclass_of(Settings, f.name)
        if cls is not None:
            out[f.name] = cls
    return out


def typed(cfg, group: str):
    """The typed object of `group` (checks.typed with the group's dataclass)."""
    from tailmem.settings.checks import typed as read

    return read(cfg, group, _dataclass_of(Settings, group))


def groups(cfg, names: Iterable[str]) -> dict[str, Any]:
    """The typed objects of `names` (a stage's groups, tailmem.stage)."""
    return {name: typed(cfg, name) for name in names}
