"""Where the Hydra configs live: one function every layer may import (the CLI, the workflow, the stages).

`configs/config.yaml` starts from the structured schema `tailmem_schema` (tailmem.settings.schema), which lives in
Hydra's ConfigStore; every composition finds the folder through `config_dir()`, so it registers the schema first.
"""

from __future__ import annotations

import functools
import importlib
import os
from pathlib import Path


def config_dir() -> Path:
    """The Hydra config folder: $TAILMEM_CONFIGS, else `configs/` at the repository root."""
    _register_schema()
    env = os.environ.get("TAILMEM_CONFIGS")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2] / "configs"


@functools.cache
def _register_schema() -> None:
    # by name, not an import statement: a stage's code digest follows its import statements (tailmem.registry),
    # and registering the schema for a composition is no part of what any stage computes
    importlib.import_module("tailmem.settings.schema").register()
