"""Where the Hydra configs live: one function every layer may import (the CLI, the workflow, the stages)."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """The Hydra config folder: $TAILMEM_CONFIGS, else `configs/` at the repository root."""
    env = os.environ.get("TAILMEM_CONFIGS")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2] / "configs"
