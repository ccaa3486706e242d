"""The record base: JSON in and out with the format version checked, fields typed by the dataclass.

A record's file holds `format_version` and exactly its fields (nested records as JSON objects). Reading checks
the version first (so an old cache names itself and its rebuild before any key is missed), then that the keys
are exactly the fields, then builds nested records from the field annotations.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import typing
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from tailmem.artifacts import read_json, write_json
from tailmem.errors import ArtifactError

VERSION_KEY = "format_version"
R = TypeVar("R", bound="Record")


class Versioned:
    """What every artifact record says about itself, whatever its bytes (JSON here, a table in `records.table`,
    arrays in `records.arrays`): `format_version` (raise it when a field, column or array changes meaning or is
    added, removed or renamed), `kind` (what the file is) and `rule` (the Snakemake rule that writes it), both for
    the messages. `cache`: the file is a cache the rule keeps between runs outside its declared outputs, which
    `--forcerun` does not remove, so its rebuild says to delete it first."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "artifact"
    rule: ClassVar[str] = ""
    cache: ClassVar[bool] = False

    @classmethod
    def rebuild(cls, path: str | os.PathLike) -> str:
        """How to make a fresh one: rerun the rule that writes it, or delete its folder and rerun the target."""
        if cls.cache:
            return (
                f"Rebuild it: delete {Path(path)} (a cache rule {cls.rule} keeps between runs; --forcerun does not "
                f"remove it), then `snakemake --cores 2 <target> --forcerun {cls.rule}` (the target you ran)"
            )
        return (
            f"Rebuild it: `snakemake --cores 2 <target> --forcerun {cls.rule}` (the target you ran), or delete "
            f"{Path(path).parent} and run it again"
        )

    @classmethod
    def check_version(cls, found: Any, path: str | os.PathLike) -> None:
        """Raise ArtifactError naming `path` and its rebuild unless `found` is this code's format_version (None:
        the file has none, an old cache)."""
        if found == cls.format_version:
            return
        was = (
            "no format_version (written before artifacts carried one)" if found is None else f"format_version {found!r}"
        )
        raise ArtifactError(
            f"{path}: {cls.kind} of {was}; this code reads format_version {cls.format_version}. {cls.rebuild(path)}"
        )

    @classmethod
    def refuse(cls, path: str | os.PathLike, problem: str) -> ArtifactError:
        """The error for a file of the right version but the wrong shape: its problem, then its rebuild."""
        return ArtifactError(
            f"{path}: not a {cls.kind} of format_version {cls.format_version} ({problem}). {cls.rebuild(path)}"
        )


@dataclasses.dataclass(frozen=True)
class Record(Versioned):
    """Base of every JSON artifact record."""

    null_non_finite: ClassVar[bool] = False  # True: NaN and infinities are written as null

    def to_json(self) -> dict[str, Any]:
        body = dataclasses.asdict(self)
        return {VERSION_KEY: self.format_version, **(_finite(body) if self.null_non_finite else body)}

    def write(self, path: str | os.PathLike) -> Path:
        return write_json(path, self.to_json())

    @classmethod
    def read(cls: type[R], path: str | os.PathLike) -> R:
        """The record in `path`; a missing, corrupt, other-version or other-shape file raises ArtifactError
        naming the file and how to rebuild it."""
        path = Path(path)
        return cls.from_json(read_json(path), path)

    @classmethod
    def read_cache(cls: type[R], path: str | os.PathLike) -> R | None:
        """A key-checked cache's record, or None when the file is absent or was written by other code (another
        format version, another shape, corrupt): the caller's key decides reuse, and a cache it cannot read is a
        miss to recompute and overwrite, not an error (logged, with the reason)."""
        path = Path(path)
        if not path.exists():
            return None
        try:
            return cls.read(path)
        except ArtifactError as exc:
            logging.getLogger(__name__).info("%s: not reused, recomputed (%s)", path, str(exc).split(". Rebuild")[0])
            return None

    @classmethod
    def from_json(cls: type[R], data: Any, path: str | os.PathLike = "<json>") -> R:
        if not isinstance(data, dict):
            raise ArtifactError(f"{path}: expected a {cls.kind} (a JSON object), got {type(data).__name__}")
        cls.check_version(data.get(VERSION_KEY), path)
        return _build(cls, {k: v for k, v in data.items() if k != VERSION_KEY}, str(path), cls)


def _build(cls: type, data: dict, path: str, top: type[Record]):
    """`cls(**data)`, nested dataclass fields built from their annotations; keys other than the fields raise."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown, missing = sorted(set(data) - set(fields)), sorted(set(fields) - set(data))
    if unknown or missing:
        what = "; ".join(
            p for p in (f"unknown keys {unknown}" if unknown else "", f"missing keys {missing}" if missing else "") if p
        )
        raise top.refuse(path, what)
    hints = typing.get_type_hints(cls)
    values = {}
    for name, value in data.items():
        nested, by_key = _dataclass_in(hints[name])
        if nested is not None and isinstance(value, dict):
            value = (
                {k: _build(nested, v, path, top) for k, v in value.items()}
                if by_key
                else _build(nested, value, path, top)
            )
        values[name] = value
    return cls(**values)


def _finite(obj):
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _dataclass_in(hint) -> tuple[type | None, bool]:
    """The dataclass a field's annotation names (`X`, `X | None`, or `dict[str, X]`: then True), else None."""
    if typing.get_origin(hint) is dict:
        value = typing.get_args(hint)[1]
        return (value, True) if dataclasses.is_dataclass(value) else (None, False)
    options = typing.get_args(hint) or (hint,)
    found = [t for t in options if dataclasses.is_dataclass(t)]
    return (found[0] if found else None), False
