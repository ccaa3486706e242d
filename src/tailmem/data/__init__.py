"""Benchmark loaders: each reads one benchmark file into frozen records, failing with the file name."""

from __future__ import annotations

import json
from pathlib import Path

from tailmem.errors import DataError


def read_json(path: str | Path, missing: str):
    """A benchmark JSON file; absent or malformed files raise DataError naming the file (`missing` says what it is
    and where it is configured)."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: {missing}; `python -m tailmem data` lists every benchmark file and fetches them")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not valid JSON ({exc})") from exc
