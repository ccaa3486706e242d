"""The array record base: named arrays in an npz file with a `format_version` array beside them.

Reading checks the version first (an old file without one names itself and its rebuild), then that the arrays
every reader relies on are there; what they mean (shapes, ranges) stays with the code that owns them
(`rollout.trace.Trace.load`, the audit's `read_counts`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

import numpy as np

from tailmem.artifacts import read_npz, write_npz
from tailmem.errors import ArtifactError
from tailmem.records.base import VERSION_KEY, Versioned

A = TypeVar("A", bound="ArrayRecord")


@dataclass(frozen=True, eq=False)
class ArrayRecord(Versioned):
    """An array artifact: `arrays` by name, the ones in `names` at least (a subclass lists them)."""

    names: ClassVar[tuple[str, ...]] = ()

    arrays: dict[str, np.ndarray]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def write(self, path: str | os.PathLike) -> Path:
        missing = [n for n in self.names if n not in self.arrays]
        if missing or VERSION_KEY in self.arrays:
            raise ArtifactError(f"{path}: the {self.kind} being written lacks arrays {missing} or names {VERSION_KEY}")
        return write_npz(path, **{VERSION_KEY: np.array(self.format_version)}, **self.arrays)

    @classmethod
    def read(cls: type[A], path: str | os.PathLike) -> A:
        """The arrays in `path`; a missing, corrupt, other-version or short-of-arrays file raises ArtifactError
        naming it and its rebuild."""
        path = Path(path)
        try:
            arrays = read_npz(path)
        except ArtifactError as exc:
            raise ArtifactError(f"{exc}. {cls.rebuild(path)}") from exc
        raw = arrays.pop(VERSION_KEY, None)
        cls.check_version(None if raw is None else _number(raw), path)
        missing = [n for n in cls.names if n not in arrays]
        if missing:
            raise cls.refuse(path, f"missing arrays {missing}")
        return cls(arrays)


def _number(raw: np.ndarray) -> int | str:
    return int(raw) if raw.shape == () and raw.dtype.kind in "iu" else repr(raw.tolist())
