"""The whole config's schema (`Settings`), registered in Hydra's ConfigStore, and the step that validates it.

`configs/config.yaml` lists `tailmem_schema` first in its defaults, so every option Hydra merges is merged into these
typed nodes: a key no dataclass has, or a value of the wrong type, fails at composition (`explain` turns Hydra's
exception into one line naming the key). `validate` then builds the typed objects (each dataclass's `__post_init__`
checks its ranges) and runs the checks of the open groups (graph, memory, llm), returning one ConfigError with a line
per problem. A stage function receives its groups as typed objects (`tailmem.settings.stage_settings.StageSettings`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from omegaconf import MISSING

from tailmem.errors import ConfigError
from tailmem.settings.alfworld import AlfworldGroup
from tailmem.settings.audit import AuditSettings
from tailmem.settings.audit_log import AuditLogGroup
from tailmem.settings.calibration import CalibrationGroup
from tailmem.settings.checks import Problems, expected_type
from tailmem.settings.control import ControlGroup, ModelRolesGroup, PowerGroup
from tailmem.settings.fsmem import FsmemGroup
from tailmem.settings.judges import JudgesGroup
from tailmem.settings.llm import ROLE_KEYS, LLMGroup
from tailmem.settings.longmemeval import LongMemEvalGroup
from tailmem.settings.rollout import PolicyGroup, RetrievalGroup, RolloutGroup
from tailmem.settings.scale import ScaleGroup
from tailmem.settings.stats import StatsGroup

SCHEMA = "tailmem_schema"  # its name in the ConfigStore (configs/config.yaml's first default)
WORKFLOW = "workflow"  # the `stage` value of the config a DAG is composed from (tailmem.workflow)
OPEN_GROUPS = ("graph", "memory")  # keys owned by a registry (settings.graph, settings.memory)


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


# ---------------------------------------------------------------- Hydra's errors as one line


def known_keys(cls=Settings, prefix: str = "") -> list[str]:
    """Every dotted key the schema defines (the open groups' keys from their registries), for suggestions."""
    from tailmem.settings import graph

    out = []
    for f in dataclasses.fields(cls):
        key = f"{prefix}{f.name}"
        sub = _dataclass_of(cls, f.name)
        if sub is not None:
            out += known_keys(sub, key + ".")
        elif key == "graph":
            out += [f"graph.{k}" for k in graph.known_keys()]
        elif key == "memory":
            from tailmem.settings.memory import known_keys as memory_keys

            out += [f"memory.{k}" for k in memory_keys()]
        else:
            out.append(key)
    return out


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


def explain(exc: Exception, overrides: Sequence[str] = ()) -> ConfigError:
    """Hydra's or OmegaConf's composition error as one line: `key=value: expected ...` for a wrong type, `key:
    unknown key; did you mean ...?` for a key no dataclass has, else Hydra's own first line after the key."""
    from omegaconf.errors import ConfigKeyError, ValidationError

    cause = exc
    while cause.__cause__ is not None and not isinstance(cause, (ConfigKeyError, ValidationError)):
        cause = cause.__cause__
    key = getattr(cause, "full_key", None) or ""
    text = str(cause).splitlines()[0] if str(cause) else type(cause).__name__
    if key and (isinstance(cause, ConfigKeyError) or "not in struct" in text or "not in '" in text):
        if key in known_keys():  # a key of a graph family or a controller that the chosen option does not set
            value = _override_value(key, overrides)
            return ConfigError(
                f"{key}: not a key of the chosen {key.split('.', 1)[0]} option; to add it, write "
                f"+{key}={'...' if value is None else value} (Hydra: {text})"
            )
        return ConfigError(unknown(key))
    if isinstance(cause, ValidationError) and key:
        value = getattr(cause, "value", None)
        if value is None:
            value = _override_value(key, overrides)
        return ConfigError(f"{key}={value!r}: expected {expected_type(text)} (Hydra: {text})")
    option = _unknown_option(cause)
    if option:
        return ConfigError(option)
    if "Could not override '" in text or "Could not append to config" in text:
        quoted = text.split("'")[1] if "'" in text else ""
        if quoted and quoted not in known_keys():
            return ConfigError(unknown(quoted))
    return ConfigError(f"{key or 'config'}: {text}")


def _unknown_option(cause: Exception) -> str | None:
    """`group=name: no such option of group group; options: ...` for Hydra's MissingConfigException, whose first
    line names the missing option and whose later lines list the group's options."""
    found = re.search(r"Could not find '([\w/]+)/([^'/]+)'", str(cause))
    if found is None:
        return None
    group, name = found.groups()
    listed = re.search(r"Available options in '[^']+':\n((?:\t[^\n]*\n?)+)", str(cause))
    options = [o.strip() for o in listed.group(1).splitlines() if o.strip()] if listed else []
    return f"{group}={name}: no such option of group {group}" + (f"; options: {', '.join(options)}" if options else "")


def _override_value(key: str, overrides: Sequence[str]):
    import yaml

    base = key.split("[", 1)[0]
    for o in overrides:
        k, _, v = o.lstrip("+~").partition("=")
        if k.strip() == base:
            try:
                return yaml.safe_load(v)
            except yaml.YAMLError:
                return v
    return None


def unknown(key: str) -> str:
    from tailmem.settings.graph import unknown as line

    return line(key, known_keys())


# ---------------------------------------------------------------- validation of a composed config


def _scope(cfg, groups: Iterable[str] | None) -> set[str] | None:
    """The groups to read: a stage's own (`groups`, which its caller takes from tailmem.stage: the settings are
    library and never import the pipeline), or None (all) for the DAG's config or when no groups are given."""
    if cfg.get("stage") == WORKFLOW or groups is None:
        return None
    return set(groups)


def _lines(call) -> list[str]:
    try:
        call()
    except ConfigError as exc:
        return str(exc).splitlines()
    return []


def errors(cfg, overrides: Sequence[str] = (), graph_option=None, groups: Iterable[str] | None = None) -> list[str]:
    """Every problem of the composed config `cfg`, one line each (empty when it is valid).

    The DAG's config (`stage: workflow`) is read whole; a stage's only in the groups it reads (the rest were read
    when its DAG was composed, and reading them would import every registry at each job's start)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    scope = _scope(cfg, groups)
    found = appended(cfg)
    try:
        missing = sorted(
            k
            for k in OmegaConf.missing_keys(cfg)
            if not k.startswith(("llm.roles.", "hydra")) and not (k.startswith("llm.") and k.split(".")[1] in ROLE_KEYS)
        )
    except OmegaConfBaseException as exc:  # an interpolation that does not resolve names its key
        return [*found, f"{getattr(exc, 'full_key', '') or 'config'}: {str(exc).splitlines()[0]}"]
    for key in missing:
        if scope is None or key.split(".", 1)[0] in scope or "." not in key:
            found.append(f"{key}: missing; expected a value (tailmem.settings: {key.split('.', 1)[0]})")
    bad = {k.split(".", 1)[0] for k in missing}
    for name in TOP_KEYS:
        if name not in bad:
            found += _lines(lambda n=name: _top(cfg, n))
    for group in (f.name for f in dataclasses.fields(Settings) if f.name not in TOP_KEYS):
        if group in bad or (scope is not None and group not in scope) or group not in cfg:
            continue
        try:
            if group == "graph" and cfg.stage == WORKFLOW and ("scale" in bad or _lines(lambda: typed(cfg, "scale"))):
                continue  # the DAG's worlds are read from the scale, reported on its own
            if group == "graph":
                node = OmegaConf.to_container(cfg.graph, resolve=True)
                if cfg.stage == WORKFLOW and graph_option is not None:
                    from tailmem.settings.graph import check_dag

                    found += check_dag(node, typed(cfg, "scale"), overrides, graph_option)
                else:
                    from tailmem.settings.graph import check

                    found += check(node, stage=True)
            elif group == "llm":
                from tailmem.settings.llm import check

                found += check(cfg)
            elif group == "memory":
                from tailmem.settings.memory import check

                found += check(OmegaConf.to_container(cfg.memory, resolve=True))
            else:
                found += _lines(lambda g=group: OmegaConf.to_object(cfg[g]))
        except OmegaConfBaseException as exc:  # an interpolation that does not resolve names its key
            found.append(f"{getattr(exc, 'full_key', '') or group}: {str(exc).splitlines()[0]}")
    return list(dict.fromkeys(found))


def appended(cfg) -> list[str]:
    """Keys a `+key=value` override appended to a typed node (Hydra adds them; no dataclass has them)."""
    from omegaconf import DictConfig, OmegaConf

    out = []

    def walk(node, prefix: str) -> None:
        cls = OmegaConf.get_type(node)
        names = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else None
        for key in node.keys():
            dotted = f"{prefix}{key}"
            if names is not None and key not in names:
                out.append(unknown(dotted))
                continue
            child = node._get_node(key)
            if isinstance(child, DictConfig) and not child._is_missing() and not child._is_none():
                walk(child, dotted + ".")

    walk(cfg, "")
    return [line for line in out if not line.startswith("hydra")]


def _top(cfg, name: str) -> None:
    p = Problems("")
    value = cfg.get(name)
    if name == "seed":
        p.integer(name, value, lo=0)
    elif name in ("data_dir", "results_dir", "figures_dir") and not (isinstance(value, str) and value):
        p.check(name, value, "expected a non-empty string")
    p.raise_any()


def validate(cfg, overrides: Sequence[str] = (), graph_option=None, groups: Iterable[str] | None = None) -> None:
    """Raise one ConfigError listing every problem of `cfg`, one line each (see `errors`)."""
    found = errors(cfg, overrides, graph_option, groups)
    if found:
        raise ConfigError("\n".join(found))


def typed(cfg, group: str):
    """The typed object of `group` (checks.typed with the group's dataclass)."""
    from tailmem.settings.checks import typed as read

    return read(cfg, group, _dataclass_of(Settings, group))


def groups(cfg, names: Iterable[str]) -> dict[str, Any]:
    """The typed objects of `names` (a stage's groups, tailmem.stage)."""
    return {name: typed(cfg, name) for name in names}
