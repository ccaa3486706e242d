"""Where the Hydra config files are, for code that reads one of them (a prompt, a memory option's YAML) without
composing a config.

A composition needs the schema in Hydra's ConfigStore first, so it finds the folder through
`tailmem.configs.config_dir`, which registers it. The registration names the schema module, whose checks read the
library's registries (controllers, harnesses, judges); a library module that found its prompt files through it
would close an import loop with the schema. This module imports nothing of the package.
"""

from __future__ import annotations

import os
from pathlib import Path


def config_folder() -> Path:
    """The Hydra config folder: $TAILMEM_CONFIGS, else `configs/` at the repository root."""
    env = os.environ.get("TAILMEM_CONFIGS")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parents[2] / "configs"
