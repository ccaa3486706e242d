"""A composed config checked whole, before any job runs: Hydra's errors as one line, every group's typed object, and
what only the package that owns a name can tell.

The schema (tailmem.settings) types every key and checks its range, and the names a fixed list accepts (designs,
judges, ALFWorld's variants...) are defined there, below the code that reads them. Some names are a registry's that a
new entry joins with no settings edit (docs/extending.md): a graph family's keys and the families a scale draws, a
controller's settings (the `memory` group and ALFWorld's memory arms) and the arm names that pick one, a backend's
kind and what it asks of a role, a benchmark (its categories and block) and a harness. Those registries sit above the
settings, so their checks live in the packages that own them (tailmem.graphworld.group, tailmem.memory.group,
tailmem.llm.group, tailmem.fsmem.group, tailmem.memory.arm_names) and run from here, the module above them all: the
DAG's config when it is composed (tailmem.workflow) and a stage's own groups when its job starts (tailmem.runner),
so a wrong value fails naming its key before any work, as each group's `__post_init__` would. Each registry is
imported by the check that needs it, so a job pays only for the groups it reads.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence

from omegaconf import MISSING

from tailmem.errors import ConfigError
from tailmem.settings.checks import Problems, error_lines, expected_type
from tailmem.settings.llm import ROLE_KEYS
from tailmem.settings.schema import TOP_KEYS, WORKFLOW, Settings, _dataclass_of, typed

# ---------------------------------------------------------------- Hydra's errors as one line


def known_keys(cls=Settings, prefix: str = "") -> list[str]:
    """Every dotted key the schema defines (the open groups' keys from their registries), for suggestions."""
    from tailmem.graphworld import group as graph
    from tailmem.memory import group as memory

    out = []
    for f in dataclasses.fields(cls):
        key = f"{prefix}{f.name}"
        sub = _dataclass_of(cls, f.name)
        if sub is not None:
            out += known_keys(sub, key + ".")
        elif key == "graph":
            out += [f"graph.{k}" for k in graph.known_keys()]
        elif key == "memory":
            out += [f"memory.{k}" for k in memory.known_keys()]
        else:
            out.append(key)
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
    library and never imports the pipeline), or None (all) for the DAG's config or when no groups are given."""
    if cfg.get("stage") == WORKFLOW or groups is None:
        return None
    return set(groups)


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
            found += error_lines(lambda n=name: _top(cfg, n))
    for group in (f.name for f in dataclasses.fields(Settings) if f.name not in TOP_KEYS):
        if group in bad or (scope is not None and group not in scope) or group not in cfg:
            continue
        try:
            if group == "graph" and cfg.stage == WORKFLOW and ("scale" in bad or _group_lines(cfg, "scale")):
                continue  # the DAG's worlds are read from the scale, reported on its own
            if group == "graph":
                from tailmem.graphworld.group import check, check_dag

                node = OmegaConf.to_container(cfg.graph, resolve=True)
                if cfg.stage == WORKFLOW and graph_option is not None:
                    found += check_dag(node, typed(cfg, "scale"), overrides, graph_option)
                else:
                    found += check(node, stage=True)
            elif group == "llm":
                from tailmem.llm.group import check

                found += check(cfg)
            elif group == "memory":
                from tailmem.memory.group import check

                found += check(OmegaConf.to_container(cfg.memory, resolve=True))
            else:
                found += _group_lines(cfg, group)
        except OmegaConfBaseException as exc:  # an interpolation that does not resolve names its key
            found.append(f"{getattr(exc, 'full_key', '') or group}: {str(exc).splitlines()[0]}")
    return list(dict.fromkeys(found))


def _group_lines(cfg, group: str) -> list[str]:
    """The problems of a typed group: its schema's (the dataclass's `__post_init__`), then those only the package
    owning its names can tell (`OWNED`), read from the composed node."""
    from omegaconf import OmegaConf

    found = error_lines(lambda: OmegaConf.to_object(cfg[group]))
    owned = OWNED.get(group)
    if owned is not None:
        found += owned(OmegaConf.to_container(cfg[group], resolve=True))
    return list(dict.fromkeys(found))


def _scale(node: dict) -> list[str]:
    from tailmem.graphworld.group import scale_problems

    return scale_problems(node)


def _control(node: dict) -> list[str]:
    arm = node.get("arm")
    if arm is None or arm == MISSING:  # set by Snakemake for a job of the controller study
        return []
    from tailmem.memory.arm_names import arm_problem

    p = Problems("control")
    p.check("arm", arm, arm_problem(arm))
    return p.lines


def _fsmem(node: dict) -> list[str]:
    from tailmem.fsmem.group import check

    return check(node)


def _alfworld(node: dict) -> list[str]:
    """Each memory arm (`alfworld.arms.<name>`) completed from configs/memory/ and read against its controller."""
    arms = node.get("arms")
    if not isinstance(arms, dict):
        return []
    from tailmem.memory.group import check

    out = []
    for name, settings in arms.items():
        out += check(dict(settings or {}), f"alfworld.arms.{name}", arm=True)
    return out


# group -> the check of the names in it that a registry above the settings owns (plain data in, one line a problem)
OWNED: dict[str, Callable[[dict], list[str]]] = {
    "control": _control,
    "fsmem": _fsmem,
    "alfworld": _alfworld,
    "scale": _scale,
}


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
