"""What the model code reads of the `llm` group: its schema object (tailmem.settings.llm.LLMGroup, `settings`), a
role's keys after inheritance (`role_settings`), the price table (`prices`, `price`) and the call cache's file
(`cache_path`). No class here repeats the group's keys: a role's record takes its fields from the schema's
RoleGroup and its values from the config."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import ConfigError
from tailmem.llm.backends.base import BACKENDS, KINDS, kind_of
from tailmem.llm.params import read_families
from tailmem.roles import model_free, player_label
from tailmem.settings.checks import MISSING
from tailmem.settings.llm import NULLABLE, ROLE_KEYS, LLMGroup, RoleGroup, read

# How a served model takes the embedded backend's constraints (tailmem.llm.structured, which builds each request);
# named here so that reading the settings never loads the embedded backend's grammar code.
STRUCTURED_OUTPUTS = ("gbnf", "vllm", "json_schema")
CACHE_LAYOUTS = ("file", "shards")  # tailmem.llm.cache (one SQLite file), tailmem.llm.cache_shards (a file per process)

# The value of each role key that the shipped presets set neither at a role nor group-wide (configs/llm/*.yaml).
# They are not written into offline.yaml because the composed `llm` group is part of every model stage's config
# digest: a key added there changes the digests and reruns every artifact. This is their only copy.
UNSET_IN_PRESETS = {
    "model": None,
    "agent": None,
    "api_key": None,
    "recorded_backend": "openai",
    "model_path": None,
    "model_sha256": None,
    "n_gpu_layers": 0,
    "kv_prefix_cache": True,
    "n_ctx": 2048,
    "n_threads": 2,
}


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    cached_input: float
    output: float


def _label(self) -> str:
    """What a result row names: the model, or the programmatic agent."""
    return player_label(self.role, self.backend, self.model, self.agent, served=bool(self.structured_outputs))


# One role's keys after inheritance: the role's name and RoleGroup's fields (what each means is written there),
# frozen, every value set. Built by `role_settings` only, so it has no defaults of its own.
Role = dataclasses.make_dataclass(
    "Role",
    [("role", str), *((f.name, f.type) for f in dataclasses.fields(RoleGroup))],
    frozen=True,
    namespace={"label": property(_label), "__module__": __name__},
)


def settings(cfg) -> LLMGroup:
    """The `llm` group of `cfg` (the whole config), checked by its schema (every error names its key)."""
    return read(cfg)


def _set(value) -> bool:
    return not (isinstance(value, str) and value == MISSING)


def role_settings(llm: LLMGroup, role: str) -> Role:
    """`role`'s keys: its own where set, else the group's (`llm.<key>`), else `UNSET_IN_PRESETS`. A null at the
    role inherits, except for the keys in NULLABLE, where it means "not sent" / "off". `params` and
    `task_max_output_tokens` are the group's mapping updated by the role's."""
    spec = llm.roles.get(role)
    if spec is None:
        raise ConfigError(f"llm.roles.{role} is not configured in llm={llm.name}")
    merged = {}
    for key in ROLE_KEYS:
        own, shared = getattr(spec, key), getattr(llm, key)
        if _set(own) and (own is not None or key in NULLABLE):
            merged[key] = own
        elif _set(shared):
            merged[key] = shared
        elif key in UNSET_IN_PRESETS:
            merged[key] = UNSET_IN_PRESETS[key]
        elif key != "backend":
            raise ConfigError(f"llm.roles.{role}.{key}: no value; set it at the role or group-wide as llm.{key}")
    for key in ("params", "task_max_output_tokens"):
        own, shared = getattr(spec, key), getattr(llm, key)
        merged[key] = {**(shared if _set(shared) and shared else {}), **(own if _set(own) and own else {})}
    backend = merged.get("backend")
    if backend not in BACKENDS:
        raise ConfigError(f"llm.roles.{role}.backend is {backend!r}; expected one of {BACKENDS}")
    if not model_free(backend) and not merged["model"]:
        raise ConfigError(f"llm.roles.{role}.model is required for backend {backend!r}")
    mode = merged["structured_outputs"]
    if mode is not None:
        kind = kind_of(backend)
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


def families(llm: LLMGroup) -> tuple[tuple[str, str], ...]:
    """(glob, family) pairs from llm.model_families, first match wins (tailmem.llm.params)."""
    entries = llm.model_families
    if not _set(entries) or entries is None:
        return read_families(None)
    return read_families([{"pattern": e.pattern, "family": e.family} for e in entries])


def cache_path(llm: LLMGroup) -> Path:
    """The call cache's file (`~` expanded; a shards layout keeps its folder beside it)."""
    return Path(os.path.expanduser(str(llm.cache_path)))


def price_entries(llm) -> dict:
    """{model: {input, cached_input, output}}: `llm.prices`, overridden by the YAML file `llm.prices_file` (model
    names with dots, such as gpt-5.4-nano, cannot be keys of a command-line override, but can be in a file).
    `llm` is the group: LLMGroup, or plain data."""
    if isinstance(llm, LLMGroup):
        table, path = llm.prices, llm.prices_file
    else:
        from tailmem.settings.checks import plain

        llm = plain(llm) or {}
        table, path = llm.get("prices"), llm.get("prices_file")
    out = dict(table or {})
    if path and _set(path):
        import yaml

        path = Path(os.path.expanduser(str(path)))
        if not path.exists():
            raise ConfigError(f"llm.prices_file: {path} not found")
        try:
            extra = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            raise ConfigError(f"llm.prices_file: {path} is not valid YAML ({exc})") from exc
        if not isinstance(extra, dict):
            raise ConfigError(f"llm.prices_file: {path} must map model names to {{input, cached_input, output}}")
        out.update(extra)
    return out


def prices(llm) -> dict[str, Price]:
    """The price table of the group (`price_entries`), each entry checked."""
    out = {}
    for model, p in price_entries(llm).items():
        try:
            out[model] = Price(float(p["input"]), float(p["cached_input"]), float(p["output"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"llm.prices.{model} needs numbers input, cached_input, output ({exc})") from exc
    return out


def price(table: dict[str, Price], model: str) -> Price:
    """The price of `model` in `table` (`prices`), else the `default` entry; a model with neither is a config
    error."""
    if model in table:
        return table[model]
    if "default" in table:
        return table["default"]
    raise ConfigError(f"llm.prices has no entry for model {model!r} and no `default` entry")


def prices_of(cfg) -> dict:
    """The price table of the whole config `cfg` (empty without an llm group), for stages that price episodes."""
    from tailmem.settings.checks import composed

    cfg = composed(cfg)
    llm = cfg.get("llm") if hasattr(cfg, "get") else None
    return price_entries(llm) if llm else {}


def shipped(**changes) -> LLMGroup:
    """The group of `configs/llm/offline.yaml` with `changes` (top-level keys; `roles` replaces the preset's
    roles): what a test runs clients with when it composes no config, so no second copy of the defaults exists."""
    return read({"llm": shipped_tree(**changes)})


def shipped_tree(**changes) -> dict:
    """`shipped` as plain data (the `llm` node of a whole-config dict)."""
    import yaml

    from tailmem.config_files import config_folder

    node = yaml.safe_load((config_folder() / "llm" / "offline.yaml").read_text())
    node.pop("defaults", None)
    return {**node, **changes}
