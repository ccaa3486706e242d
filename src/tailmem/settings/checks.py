"""The range checks of the settings dataclasses: each names the key, the value and what was expected.

Hydra (OmegaConf) checks a key exists and its value has the field's type when it composes; what a type cannot say
(`>= 1`, one of a fixed list of names, a non-empty list) is checked here, in each dataclass's `__post_init__`, which
runs when `tailmem.validation.validate` turns the composed config into the typed objects. A check collects its
group's problems in `Problems` and raises one ConfigError with a line per problem. The checks of the names a
registry above the settings owns (tailmem.validation says which) use the same `Problems`, so their lines read alike.

The module sits below every group and imports nothing of the package but its errors, so it also holds what the
groups and the code their checks import share with a stage's typed settings (tailmem.settings.stage_settings):
reading a group (`typed`, `plain`) and the stand-in for an unlisted group (`Unread`).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tailmem.errors import ConfigError

MISSING = "???"  # omegaconf.MISSING: no value yet (the YAML gives it)


def _bounds(lo, hi, lo_open: bool, hi_open: bool) -> str:
    if lo is not None and hi is not None:
        return f" in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    if lo is not None:
        return f" {'>' if lo_open else '>='} {lo:g}"
    if hi is not None:
        return f" {'<' if hi_open else '<='} {hi:g}"
    return ""


def integer_problem(value, lo=None, hi=None, null: bool = False) -> str | None:
    if value is None:
        return None if null else f"expected an integer{_bounds(lo, hi, False, False)}, not null"
    ok = (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (lo is None or value >= lo)
        and (hi is None or value <= hi)
    )
    return None if ok else f"expected an integer{_bounds(lo, hi, False, False)}{' or null' if null else ''}"


def number_problem(value, lo=None, hi=None, lo_open=False, hi_open=False, null: bool = False) -> str | None:
    what = f"a number{_bounds(lo, hi, lo_open, hi_open)}{' or null' if null else ''}"
    if value is None:
        return None if null else f"expected {what}, not null"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return f"expected {what}"
    if lo is not None and (value <= lo if lo_open else value < lo):
        return f"expected {what}"
    if hi is not None and (value >= hi if hi_open else value > hi):
        return f"expected {what}"
    return None


def name_problem(value, names: Iterable[Any], null: bool = False) -> str | None:
    names = list(names)
    if value is None:
        return None if null else f"expected one of {names}, not null"
    if not isinstance(value, bool) and value in names:
        return None
    close = difflib.get_close_matches(value, [str(n) for n in names], n=1) if isinstance(value, str) else []
    return f"expected one of {names}{' or null' if null else ''}" + (f"; did you mean {close[0]!r}?" if close else "")


def string_problem(value, null: bool = False) -> str | None:
    if value is None:
        return None if null else "expected a non-empty string, not null"
    return None if isinstance(value, str) and value else "expected a non-empty string"


def list_problem(
    values, item: Callable[[Any], str | None], what: str, empty: bool = False, null: bool = False
) -> str | None:
    """`item(value)` is an item's problem or None; `what` says what an item is, for the empty-list message."""
    if values is None:
        return None if null else f"expected a list of {what}, not null"
    if not values and not empty:
        return f"expected a non-empty list of {what}, got an empty list"
    for i, value in enumerate(values):
        bad = item(value)
        if bad:
            return f"item {i} ({value!r}): {bad}"
    return None


def error_lines(call: Callable[[], Any]) -> list[str]:
    """The lines of the ConfigError `call` raises (empty when it raises none): a check whose problems come as an
    error, read as problem lines beside the others."""
    try:
        call()
    except ConfigError as exc:
        return str(exc).splitlines()
    return []


class Problems:
    """The problems of one settings object, raised together: `check(key, value, problem)` records one line."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.lines: list[str] = []

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def check(self, name: str, value: Any, problem: str | None) -> None:
        if problem and not (isinstance(value, str) and value == MISSING):  # a default object (its factory's)
            self.lines.append(f"{self.key(name)}={_shown(value)}: {problem}")

    def add(self, line: str) -> None:
        self.lines.append(line)

    def integer(self, name: str, value, lo=None, hi=None, null: bool = False) -> None:
        self.check(name, value, integer_problem(value, lo, hi, null))

    def number(self, name: str, value, lo=None, hi=None, lo_open=False, hi_open=False, null=False) -> None:
        self.check(name, value, number_problem(value, lo, hi, lo_open, hi_open, null))

    def one_of(self, name: str, value, names: Iterable[Any], null: bool = False) -> None:
        self.check(name, value, name_problem(value, names, null))

    def integers(self, name: str, values: Sequence, lo=None, empty: bool = False, null: bool = False) -> None:
        what = f"an integer{_bounds(lo, None, False, False)}"
        self.check(name, values, list_problem(values, lambda v: integer_problem(v, lo), what, empty, null))

    def numbers(
        self, name: str, values: Sequence, lo=None, hi=None, lo_open=False, hi_open=False, empty: bool = False
    ) -> None:
        what = f"a number{_bounds(lo, hi, lo_open, hi_open)}"
        self.check(
            name, values, list_problem(values, lambda v: number_problem(v, lo, hi, lo_open, hi_open), what, empty)
        )

    def names(self, name: str, values: Sequence, names: Iterable[Any], empty: bool = False, null=False) -> None:
        names = list(names)
        self.check(name, values, list_problem(values, lambda v: name_problem(v, names), f"one of {names}", empty, null))

    def strings(self, name: str, values: Sequence, empty: bool = False, null: bool = False) -> None:
        self.check(name, values, list_problem(values, string_problem, "non-empty strings", empty, null))

    def raise_any(self) -> None:
        if self.lines:
            raise ConfigError("\n".join(dict.fromkeys(self.lines)))


def _shown(value: Any) -> str:
    """A value as the user wrote it: plain lists and mappings, not OmegaConf's containers."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():  # OmegaConf made a float of the `-1` the user wrote
        return repr(int(value))
    return repr(value)


def hydra_line(exc: Exception) -> tuple[str, str]:
    """(the key, one line) of an OmegaConf error: `key=value: expected <type> (Hydra: ...)` for a wrong type."""
    from omegaconf.errors import ValidationError

    key = getattr(exc, "full_key", None) or ""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, ValidationError) and key:
        return key, f"{key}={getattr(exc, 'value', None)!r}: expected {expected_type(text)} (Hydra: {text})"
    return key, f"{key or 'config'}: {text}"


def expected_type(text: str) -> str:
    """What OmegaConf's conversion message says the field's type is, in the words of the range checks."""
    for word, what in (
        ("Integer", "an integer"),
        ("Float", "a number"),
        ("Boolean", "true or false"),
        ("String", "a string"),
        ("Dict", "a mapping"),
        ("List", "a list"),
        ("None", "a value, not null"),
    ):
        if word in text:
            return what
    return "a value of the key's type"


class Unread:
    """Stands for a group the stage's registry entry does not list: reading it is a bug the digest would hide."""

    def __init__(self, stage: str, group: str):
        self._where = (stage, group)

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        raise self.refusal(name)

    def refusal(self, name: str = "") -> ConfigError:
        stage, group = self._where
        read = f"{group}.{name}" if name else f"the {group} group"
        return ConfigError(
            f"stage {stage} reads {read}, but its entry in tailmem.stage does not list the {group!r} "
            "group: add it there, so that the stage's config digest covers it"
        )


def typed(cfg, group: str, cls):
    """The typed object `cls` of `group` in `cfg` (ranges checked by its `__post_init__`): from a composed config,
    an object already typed, or plain data (a dict, an untyped DictConfig: merged into `cls` first)."""
    import dataclasses

    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    node = cfg.get(group) if hasattr(cfg, "get") else getattr(cfg, group)
    if isinstance(node, Unread):
        raise node.refusal()
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return node
    try:
        if not (isinstance(node, DictConfig) and OmegaConf.get_type(node) is cls):
            node = OmegaConf.merge(OmegaConf.structured(cls), node or {})
        return OmegaConf.to_object(node)
    except OmegaConfBaseException as exc:
        key, line = hydra_line(exc)
        raise ConfigError(line if key.startswith(group) or not key else f"{group}.{line}") from exc


def _unset(value) -> bool:
    return isinstance(value, str) and value == MISSING


def plain(node) -> dict:
    """A node (a DictConfig or a dict) as plain data without its unset (MISSING) keys: the `llm` group, whose
    unset role keys inherit llm.<key> (tailmem.settings.llm)."""
    from omegaconf import DictConfig, OmegaConf

    def strip(tree):
        if isinstance(tree, dict):
            return {k: strip(v) for k, v in tree.items() if not _unset(v)}
        return tree

    if isinstance(node, DictConfig):
        node = OmegaConf.to_container(node, resolve=True)
    return strip(dict(node or {}))
