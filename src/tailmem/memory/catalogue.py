"""One memory-arm spec for every benchmark: the settings of a controller come from `configs/memory/<name>.yaml`,
and an arm is those settings plus the few keys a benchmark sets (budget, encoding, rank order).

The graph world composes one `memory=<name>` choice through Hydra (the same files); LongMemEval and ALFWorld
build several arms in one job from this catalogue, so a default edited in `configs/memory/` reaches all three.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from tailmem.errors import ConfigError


@cache
def _catalogue(root: str) -> dict[str, dict[str, Any]]:
    from pathlib import Path

    from omegaconf import OmegaConf

    folder = Path(root) / "memory"
    out = {}
    for path in sorted(folder.glob("*.yaml")):
        node = OmegaConf.load(path)
        out[path.stem] = OmegaConf.to_container(node, resolve=True)
    if not out:
        raise ConfigError(f"memory: no controller configs in {folder}")
    return out


def catalogue() -> dict[str, dict[str, Any]]:
    """Every memory option's resolved settings, by option name (a fresh copy each call)."""
    from tailmem.config_files import config_folder

    return {name: dict(v) for name, v in _catalogue(str(config_folder())).items()}


def arm_settings(name: str, **overrides: Any) -> dict[str, Any]:
    """The settings of controller `name` from `configs/memory/` with `overrides` on top (unknown keys refused,
    so a typo cannot silently leave a default in force)."""
    cat = catalogue()
    if name not in cat:
        raise ConfigError(f"memory={name!r}: no config configs/memory/{name}.yaml; expected one of {sorted(cat)}")
    settings = cat[name]
    unknown = sorted(set(overrides) - set(settings))
    if unknown:
        raise ConfigError(
            f"memory={name}: unknown keys {unknown}; configs/memory/{name}.yaml defines {sorted(settings)}"
        )
    return settings | overrides


def catalogue_payload(cfg) -> dict[str, dict[str, Any]]:
    """The whole catalogue, for the config digest of a stage that may build any arm from it."""
    return catalogue()
