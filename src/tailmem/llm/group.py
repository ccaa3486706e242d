"""How the model code gets the `llm` group: the schema's own object (tailmem.settings.llm.LLMGroup), read from a
config or, outside a stage (a test, a benchmark), from the shipped YAML, so that no second copy of its defaults
exists, and checked against the backends' registry. A role's keys after inheritance are read off that object here
(`role_settings`), the price table and the call cache's file by the functions beside the schema
(tailmem.settings.llm: `prices`, `cache_path`), whose checks run them.

Why the merge lives here and not beside the schema: a role's backend is a name `tailmem.llm.backends.base.KINDS`
registers (a new backend joins by its row alone, docs/extending.md), and its kind's traits decide what else the role
needs (a model to play, no served constraints on weights in process). That registry sits above the settings, so the
rules that read it run here: in `settings`, which every reader of the group for the model code goes through, and in
`check`, which the whole-config check runs (tailmem.validation) before any job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from omegaconf import MISSING

from tailmem.errors import ConfigError
from tailmem.llm.backends.base import KINDS, kind_of
from tailmem.roles import ROLES
from tailmem.settings.checks import Problems, plain
from tailmem.settings.llm import (
    NULLABLE,
    ROLE_KEYS,
    UNSET_IN_PRESETS,
    LLMGroup,
    Role,
    is_set,
    price_entries,
    read,
)

if TYPE_CHECKING:
    from omegaconf import DictConfig


def settings(cfg) -> LLMGroup:
    """The `llm` group of `cfg` (the whole config), checked by its schema and against the backends' kinds (every
    error names its key)."""
    try:
        llm = read(cfg)
    except ConfigError as exc:  # the schema's lines, and beside them the backends' names it cannot check
        raise ConfigError("\n".join(dict.fromkeys([*str(exc).splitlines(), *kind_problems(_node(cfg))]))) from exc
    p = Problems("llm")
    p.lines += kind_problems(llm)
    p.raise_any()
    try:
        for name in llm.roles:
            role_settings(llm, name)
    except ConfigError as exc:
        p.lines += str(exc).splitlines()
    p.raise_any()
    return llm


def check(cfg) -> list[str]:
    """Every problem of the `llm` group of the composed config `cfg`, one line each (tailmem.validation)."""
    try:
        settings(cfg)
    except ConfigError as exc:
        return str(exc).splitlines()
    return []


def kind_problems(llm) -> list[str]:
    """The backend names that `KINDS` does not register, group-wide (`llm.backend`, `llm.recorded_backend`) and at
    each role, one line each (unset keys are checked where they are inherited from). `llm` is the group, or its
    plain data when the schema refused it."""

    def get(spec, key):
        return spec.get(key, MISSING) if isinstance(spec, Mapping) else getattr(spec, key)

    kinds = list(KINDS)
    roles = get(llm, "roles") or {}
    out = []
    for prefix, spec in (("llm", llm), *((f"llm.roles.{n}", r or {}) for n, r in roles.items() if n in ROLES)):
        p = Problems(prefix)
        p.one_of("backend", get(spec, "backend"), kinds)
        p.one_of("recorded_backend", get(spec, "recorded_backend"), kinds)
        out += p.lines
    return out


def _node(cfg) -> dict:
    """The `llm` node of the whole config `cfg` as plain data (`read` reads the same), or {} when there is none."""
    from omegaconf import DictConfig

    node = cfg.get("llm") if hasattr(cfg, "get") else getattr(cfg, "llm", None)
    return plain(node) if isinstance(node, (dict, DictConfig)) else {}


def role_settings(llm: LLMGroup, role: str) -> Role:
    """`role`'s keys: its own where set, else the group's (`llm.<key>`), else `UNSET_IN_PRESETS`. A null at the
    role inherits, except for the keys in NULLABLE, where it means "not sent" / "off". `params` and
    `task_max_output_tokens` are the group's mapping updated by the role's. The backend must be one `KINDS`
    registers, and its kind's traits decide what else the role needs."""
    spec = llm.roles.get(role)
    if spec is None:
        raise ConfigError(f"llm.roles.{role} is not configured in llm={llm.name}")
    merged = {}
    for key in ROLE_KEYS:
        own, shared = getattr(spec, key), getattr(llm, key)
        if is_set(own) and (own is not None or key in NULLABLE):
            merged[key] = own
        elif is_set(shared):
            merged[key] = shared
        elif key in UNSET_IN_PRESETS:
            merged[key] = UNSET_IN_PRESETS[key]
        elif key != "backend":
            raise ConfigError(f"llm.roles.{role}.{key}: no value; set it at the role or group-wide as llm.{key}")
    for key in ("params", "task_max_output_tokens"):
        own, shared = getattr(spec, key), getattr(llm, key)
        merged[key] = {**(shared if is_set(shared) and shared else {}), **(own if is_set(own) and own else {})}
    backend = merged.get("backend")
    if backend not in KINDS:
        raise ConfigError(f"llm.roles.{role}.backend is {backend!r}; expected one of {list(KINDS)}")
    kind = kind_of(backend)
    if kind.plays_model and not merged["model"]:
        raise ConfigError(f"llm.roles.{role}.model is required for backend {backend!r}")
    mode = merged["structured_outputs"]
    if mode is not None:
        played = KINDS.get(merged["recorded_backend"]) if kind.replays else kind
        if played is not None and played.embedded:  # weights in process: their grammar is their own
            raise ConfigError(
                f"llm.roles.{role}.structured_outputs={mode} is for a served model (backend openai); backend "
                f"{backend!r} constrains its own decoding or none: set it to null"
            )
    return Role(role=role, **merged)


def roles(llm: LLMGroup) -> dict[str, Role]:
    """Every configured role's keys after inheritance (`role_settings`)."""
    return {role: role_settings(llm, role) for role in llm.roles}


def prices_of(cfg: DictConfig) -> dict:
    """The price table of the composed config `cfg` (empty without an llm group), for stages that price episodes
    (a stage passes its settings' `composed`)."""
    llm = cfg.get("llm")
    return price_entries(llm) if llm else {}


def shipped(**changes) -> LLMGroup:
    """The group of `configs/llm/offline.yaml` with `changes` (top-level keys; `roles` replaces the preset's
    roles): what a test runs clients with when it composes no config, so no second copy of the defaults exists."""
    return settings({"llm": shipped_tree(**changes)})


def shipped_tree(**changes) -> dict:
    """`shipped` as plain data (the `llm` node of a whole-config dict)."""
    import yaml

    from tailmem.config_files import config_folder

    node = yaml.safe_load((config_folder() / "llm" / "offline.yaml").read_text())
    node.pop("defaults", None)
    return {**node, **changes}
