"""Shared test fixtures: the repository root and the real benchmark data folder (read-only)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = Path(os.environ.get("TAILMEM_DATA_DIR", REPO.parent / "shared" / "data")).resolve()
    if not path.exists():
        pytest.skip(f"benchmark data not found at {path} (set TAILMEM_DATA_DIR)")
    return path
