"""The `memory` group checked against the controllers: one controller's settings, an open mapping whose schema is
the controller's dataclass.

Why not one dataclass: a controller's settings are the fields of its class in `memory.controllers.CONTROLLERS`, so
adding a controller with a new setting touches its code and its `configs/memory/<name>.yaml` only (docs/extending.md).
`check` reads the keys against those fields (`make_controller` refuses the others), each value against its field's
type, and each range against the field's `metadata` (`field(default=5, metadata={"min": 1})`); `name` and `label`
are the config's own keys. `budget` is read by tailmem.memory.budget (`problem`: tokens, null or `matched`, which
only `resolve` turns into tokens, once a reference arm has run), so the check builds the controller without it.
The controllers sit above the settings, so this check lives here and runs where the composed config is checked
whole (tailmem.validation): the `memory` group, and each of ALFWorld's memory arms (`alfworld.arms`).
"""

from __future__ import annotations

import dataclasses
import typing

from tailmem.errors import ConfigError
from tailmem.memory import budget, controllers
from tailmem.memory.catalogue import arm_settings
from tailmem.settings.checks import integer_problem, number_problem

LABELS = ("name", "label")


def _type_problem(hint, value) -> str | None:
    """What is wrong with `value` for a field annotated `hint` (int, float, str, bool, X | None), or None."""
    args = typing.get_args(hint)
    if type(None) in args:
        if value is None:
            return None
        hint = next(a for a in args if a is not type(None))
    if hint is bool:
        return None if isinstance(value, bool) else "expected true or false"
    if hint is int:
        return integer_problem(value)
    if hint is float:
        return number_problem(value)
    if hint is str:
        return None if isinstance(value, str) and value else "expected a non-empty string"
    return None


def _field_problems(cls, settings: dict, prefix: str) -> list[str]:
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if f.name not in settings or f.name.startswith("_"):
            continue
        value = settings[f.name]
        if f.name == budget.KEY:
            bad = budget.problem(value)
            if bad:
                out.append(f"{prefix}.{f.name}={value!r}: {bad}")
            continue
        bad = _type_problem(hints.get(f.name), value)
        lo = f.metadata.get("min")
        if bad is None and lo is not None and value is not None and value < lo:
            hint = hints.get(f.name)
            integral = hint is int or int in typing.get_args(hint)
            bad = f"expected {'an integer' if integral else 'a number'} >= {lo:g}"
        if bad:
            out.append(f"{prefix}.{f.name}={value!r}: {bad}")
    return out


def known_keys() -> list[str]:
    """`name`, `label` and every controller's settings (its dataclass fields)."""
    fields = {
        f.name for c in controllers.CONTROLLERS.values() for f in dataclasses.fields(c) if not f.name.startswith("_")
    }
    return sorted(set(LABELS) | fields)


def check(settings: dict, prefix: str = "memory", arm: bool = False) -> list[str]:
    """The problems of one controller's settings; an arm (`arm=True`, ALFWorld's) is first completed from
    configs/memory/<name>.yaml by memory.catalogue.arm_settings, as the stages build it."""

    def rename(line: str) -> str:
        if line.startswith(("memory.", "memory=")):  # memory.<key>: ..., or memory=<name>: ... (arm_settings)
            return f"{prefix}." + ("name=" if line[6] == "=" else "") + line[7:]
        return f"{prefix}: {line}"

    full = dict(settings)
    try:
        if arm:
            full = arm_settings(full.pop("name", None), **full)
        cls = controllers.CONTROLLERS.get(full.get("name"))
        if cls is not None:
            problems = _field_problems(cls, full, prefix)
            if problems:
                return problems
        controllers.make_controller({k: v for k, v in full.items() if k != budget.KEY})  # read when called
    except ConfigError as exc:
        return [rename(line) for line in str(exc).splitlines()]
    return []
