"""Field checks for benchmark records: a bad record stops the stage naming the file, the record and the field.

Without them a missing answer became the gold answer "" (F1 0, exit 0), `null` became "None", a string of
evidence became a tuple of characters, and an integer question crashed a later stage far from its source.
"""

from __future__ import annotations

from typing import Any

from tailmem.errors import DataError

_MISSING = object()


def _fail(where: str, key: str, want: str, got: Any) -> DataError:
    shown = "missing" if got is _MISSING else f"got {type(got).__name__} {str(got)[:60]!r}"
    return DataError(f"{where}: field {key!r}: expected {want}, {shown}")


def mapping(record: Any, where: str) -> dict:
    if not isinstance(record, dict):
        raise DataError(f"{where}: expected a JSON object, got {type(record).__name__}")
    return record


def text(
    record: dict, key: str, where: str, *, numbers: bool = False, empty: bool = False, default: Any = _MISSING
) -> str:
    """A string field (non-empty unless `empty`); `numbers` also accepts an int or float (written as text),
    as benchmark answers such as a year sometimes are. Never bool or null."""
    value = record.get(key, default)
    if value is _MISSING:
        raise _fail(where, key, "a string", value)
    if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise _fail(where, key, "a non-empty string" + (" or a number" if numbers else ""), value)
    return value


def optional_text(record: dict, key: str, where: str) -> str:
    """A string field that may be absent or null (read as "")."""
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _fail(where, key, "a string or null", value)
    return value


def integer(record: dict, key: str, where: str, choices=None) -> int:
    value = record.get(key, _MISSING)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, key, "an integer", value)
    if choices is not None and value not in choices:
        raise DataError(f"{where}: field {key!r}: {value} is not one of {sorted(choices)}")
    return value


def strings(record: dict, key: str, where: str, required: bool = False) -> tuple[str, ...]:
    """A list of strings (absent = empty unless `required`); a bare string is refused, not split into characters."""
    value = record.get(key, _MISSING if required else [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(where, key, "a list of strings", value)
    return tuple(value)


def items(record: dict, key: str, where: str) -> list:
    value = record.get(key, _MISSING)
    if not isinstance(value, list):
        raise _fail(where, key, "a list", value)
    return value
