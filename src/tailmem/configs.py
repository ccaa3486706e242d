"""Where the Hydra configs live, for a composition: one function every layer that composes may import (the CLI,
the workflow, the stages' tests).

`configs/config.yaml` starts from the structured schema `tailmem_schema` (tailmem.settings.schema), which lives in
Hydra's ConfigStore; every composition finds the folder through `config_dir()`, so it registers the schema first.
Code that only reads a file of the folder finds it through `tailmem.config_files.config_folder`, which registers
nothing and so stays below the settings.
"""

from __future__ import annotations

import functools
from pathlib import Path

from tailmem.config_files import config_folder
from tailmem.lazy import resolve


def config_dir() -> Path:
    """The Hydra config folder (`config_folder()`: $TAILMEM_CONFIGS, else `configs/` at the repository root), with
    the schema registered."""
    _register_schema()
    return config_folder()


@functools.cache
def _register_schema() -> None:
    # by name, not an import statement: a stage's code digest follows its import statements (tailmem.digests),
    # and registering the schema for a composition is no part of what any stage computes
    resolve("tailmem.settings.schema:register")()
