"""Typed readers of config values: a value's type and range, and the one-line error when it is wrong.

Why a module of its own: a stage's typed reader (stages/audit_settings.py) and the schema of every key
(tailmem.config_schema) share these classes, and a stage importing them must not import the schema's registries
(the stage's code digest follows its imports, tailmem.registry).
"""

from __future__ import annotations

import difflib
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from tailmem.errors import ConfigError


def check(key: str, value: Any, reader: "Reader") -> Any:
    """`value` when `reader` accepts it, else ConfigError `key=value: expected ...` (one line)."""
    problem = reader.problem(value)
    if problem:
        raise ConfigError(f"{key}={value!r}: {problem}")
    return value


class Reader(ABC):
    """A value's type and range. `null=True`: the key may be null."""

    null = False

    def problem(self, value: Any) -> str | None:
        if value is None:
            return None if self.null else f"expected {self.describe()}, not null"
        return self.check(value)

    @abstractmethod
    def check(self, value: Any) -> str | None:
        """What is wrong with a non-null `value`, or None."""

    @abstractmethod
    def describe(self) -> str:
        """What is expected, for the error message."""


def _bounds(lo, hi, lo_open: bool = False, hi_open: bool = False) -> str:
    if lo is not None and hi is not None:
        return f" in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    if lo is not None:
        return f" {'>' if lo_open else '>='} {lo:g}"
    if hi is not None:
        return f" {'<' if hi_open else '<='} {hi:g}"
    return ""


class Int(Reader):
    """An integer; `lo` may be a function, for a bound another module owns (graph.n's MIN_STATES)."""

    def __init__(self, lo: int | Callable[[], int] | None = None, hi: int | None = None, null: bool = False):
        self._lo, self.hi, self.null = lo, hi, null

    @property
    def lo(self) -> int | None:
        return self._lo() if callable(self._lo) else self._lo

    def check(self, value):
        lo = self.lo
        ok = (isinstance(value, int) and not isinstance(value, bool)
              and (lo is None or value >= lo) and (self.hi is None or value <= self.hi))
        return None if ok else f"expected {self.describe()}"

    def describe(self):
        return "an integer" + _bounds(self.lo, self.hi) + (" or null" if self.null else "")


class Choice(Reader):
    """One of a registry's values (numbers too: LoCoMo's categories)."""

    def __init__(self, choices: Callable[[], Iterable[Any]], null: bool = False):
        self.choices, self.null = choices, null

    def check(self, value):
        names = list(self.choices())
        ok = not isinstance(value, bool) and value in names
        return None if ok else f"expected {self.describe()}"

    def describe(self):
        return f"one of {list(self.choices())}" + (" or null" if self.null else "")


class Num(Reader):
    def __init__(self, lo: float | None = None, hi: float | None = None, lo_open: bool = False,
                 hi_open: bool = False, null: bool = False):
        self.lo, self.hi, self.lo_open, self.hi_open, self.null = lo, hi, lo_open, hi_open, null

    def check(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"expected {self.describe()}"
        if self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo):
            return f"expected {self.describe()}"
        if self.hi is not None and (value >= self.hi if self.hi_open else value > self.hi):
            return f"expected {self.describe()}"
        return None

    def describe(self):
        return "a number" + _bounds(self.lo, self.hi, self.lo_open, self.hi_open) + (" or null" if self.null else "")


class Str(Reader):
    """A non-empty string; with `choices` (names, or a function returning them) one of those names."""

    def __init__(self, choices: Iterable[str] | Callable[[], Iterable[str]] | None = None, null: bool = False):
        self._choices, self.null = choices, null

    @property
    def choices(self) -> list[str] | None:
        if self._choices is None:
            return None
        return list(self._choices() if callable(self._choices) else self._choices)

    def check(self, value):
        if not isinstance(value, str) or not value:
            return f"expected {self.describe()}"
        names = self.choices
        if names is not None and value not in names:
            close = difflib.get_close_matches(value, names, n=1)
            return f"expected {self.describe()}" + (f"; did you mean {close[0]!r}?" if close else "")
        return None

    def describe(self):
        names = self.choices
        what = f"one of {names}" if names is not None else "a non-empty string"
        return what + (" or null" if self.null else "")


class Url(Str):
    def check(self, value):
        if not isinstance(value, str) or not value.startswith(("http://", "https://")):
            return f"expected {self.describe()}"
        return None

    def describe(self):
        return "an http(s):// URL" + (" or null" if self.null else "")


class Bool(Reader):
    def __init__(self, null: bool = False):
        self.null = null

    def check(self, value):
        return None if isinstance(value, bool) else f"expected {self.describe()}"

    def describe(self):
        return "true or false" + (" or null" if self.null else "")


class ListOf(Reader):
    """A list whose every item passes `item`; non-empty unless `empty=True`."""

    def __init__(self, item: Reader, empty: bool = False, null: bool = False):
        self.item, self.empty, self.null = item, empty, null

    def check(self, value):
        if not isinstance(value, (list, tuple)):
            return f"expected {self.describe()}"
        if not value and not self.empty:
            return f"expected {self.describe()}, got an empty list"
        for i, item in enumerate(value):
            bad = self.item.problem(item)
            if bad:
                return f"item {i} ({item!r}): {bad}"
        return None

    def describe(self):
        return f"a {'' if self.empty else 'non-empty '}list of {self.item.describe()}" + (" or null" if self.null else "")


class Map(Reader):
    """A mapping whose contents are free (request parameters): its keys are not checked."""

    def __init__(self, null: bool = False):
        self.null = null

    def check(self, value):
        return None if isinstance(value, dict) else f"expected {self.describe()}"

    def describe(self):
        return "a mapping" + (" or null" if self.null else "")


class AnyOf(Reader):
    def __init__(self, *readers: Reader, null: bool = False):
        self.readers, self.null = readers, null

    def check(self, value):
        return None if any(r.problem(value) is None for r in self.readers) else f"expected {self.describe()}"

    def describe(self):
        return " or ".join(r.describe() for r in self.readers) + (" or null" if self.null else "")


class Probe(Reader):
    """The rule of a stage's own typed reader: `read(value)` raises ConfigError when the value is bad, and the
    message after its `key: ` prefix says what was expected."""

    def __init__(self, read: Callable[[Any], Any], what: str, null: bool = False):
        self.read, self.what, self.null = read, what, null

    def check(self, value):
        try:
            self.read(value)
        except ConfigError as exc:  # keep what the reader says was expected, drop its own key prefix
            text = str(exc)
            if "expected " in text:
                return text[text.index("expected "):]
            return text.split(": ", 1)[1] if ": " in text else text
        except (TypeError, ValueError):
            return f"expected {self.what}"
        return None

    def describe(self):
        return self.what + (" or null" if self.null else "")


class Checked(Reader):
    """A key whose rule involves other keys: a group check (below) reads it with them."""

    null = True  # the group check decides, null included

    def __init__(self, by: str):
        self.by = by

    def check(self, value):
        return None

    def describe(self):
        return f"(checked by {self.by})"
