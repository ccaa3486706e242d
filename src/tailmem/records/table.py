"""The table record base: a DataFrame in a parquet file whose schema metadata carries the format version.

pandas' `df.attrs` do not survive every parquet round trip, so the version goes in the arrow schema's own
metadata (beside pandas' entry), which every reader of the file sees. Reading checks the version first (an old
file without one names itself and its rebuild), then that the columns every reader relies on are there; the
frame comes back through `pd.read_parquet`, as before the records, so the numbers read are the same.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

import pandas as pd

from tailmem.artifacts import atomic_path
from tailmem.errors import ArtifactError
from tailmem.records.base import VERSION_KEY, Versioned

VERSION_META = VERSION_KEY.encode()  # the schema metadata key
T = TypeVar("T", bound="TableRecord")


@dataclass(frozen=True, eq=False)
class TableRecord(Versioned):
    """A table artifact: `frame` with the columns `columns` at least (a subclass names them; more may follow)."""

    columns: ClassVar[tuple[str, ...]] = ()

    frame: pd.DataFrame

    def write(self, path: str | os.PathLike) -> Path:
        """Write `frame` (no index, as `to_parquet(index=False)` did) with the version in the schema metadata."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        missing = [c for c in self.columns if c not in self.frame.columns]
        if missing:  # the writer's bug: say so here rather than in every reader
            raise ArtifactError(f"{path}: the {self.kind} being written lacks columns {missing}")
        table = pa.Table.from_pandas(self.frame, preserve_index=False)
        meta = {**(table.schema.metadata or {}), VERSION_META: str(self.format_version).encode()}
        with atomic_path(path) as tmp:
            pq.write_table(table.replace_schema_metadata(meta), tmp)
        return Path(path)

    @classmethod
    def read(cls: type[T], path: str | os.PathLike, columns: Sequence[str] | None = None) -> T:
        """The table in `path` (only `columns`, if given); a missing, corrupt, other-version or short-of-columns
        file raises ArtifactError naming it and its rebuild."""
        import pyarrow.parquet as pq

        path = Path(path)
        if not path.exists():
            raise ArtifactError(f"{path}: file not found. {cls.rebuild(path)}")
        try:
            schema = pq.read_schema(path)
        except Exception as exc:  # pyarrow raises several types for a truncated or foreign file
            raise ArtifactError(f"{path}: corrupt parquet file ({exc}). {cls.rebuild(path)}") from exc
        raw = (schema.metadata or {}).get(VERSION_META)
        cls.check_version(None if raw is None else _number(raw.decode(errors="replace")), path)
        missing = [c for c in (*cls.columns, *(columns or ())) if c not in schema.names]
        if missing:
            raise cls.refuse(path, f"missing columns {sorted(set(missing))}")
        try:
            frame = pd.read_parquet(path, columns=None if columns is None else list(columns))
        except Exception as exc:
            raise ArtifactError(f"{path}: corrupt parquet file ({exc}). {cls.rebuild(path)}") from exc
        return cls(frame)


def _number(text: str) -> int | str:
    return int(text) if text.isdigit() else text
