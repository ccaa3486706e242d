"""Glue between Snakemake and Hydra: compose the config a DAG is built from, and route overrides to stages.

The Snakefile enumerates its targets from the same composed config the stages read, so the DAG and the
stages can never disagree about sizes, seeds or folders.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from omegaconf import DictConfig

from tailmem.cli import config_dir
from tailmem.errors import ConfigError

# Keys every stage receives: they move artifacts or data, not numbers.
GLOBAL_KEYS = ("results_dir", "figures_dir", "data_dir")


def compose_config(scale: str, overrides: Sequence[str] = ()) -> DictConfig:
    """The resolved primary config for `scale` plus `overrides`; a bad key fails here, before any job runs."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[f"scale={scale}", *overrides, "stage=workflow"])
    except (HydraException, OmegaConfBaseException) as exc:
        raise ConfigError(f"config for scale={scale!r} with overrides {list(overrides)}: {exc}") from exc
    finally:
        GlobalHydra.instance().clear()
    return cfg


def override_key(override: str) -> str:
    """The dotted key an override sets: `+a.b=1` -> `a.b`, `graph=modular` -> `graph`."""
    return override.lstrip("+~").split("=", 1)[0].strip()


def stage_overrides(overrides: Iterable[str], groups: Iterable[str], family: str | None = None) -> list[str]:
    """The overrides whose top-level key is one of `groups` (or a global key).

    With `family`, a job's graph family comes from its wildcard: `graph=<option>` is dropped and `graph.<key>`
    reaches only families whose config has that key (`graph.degree=6` changes uniform worlds, not scale-free); sizes come from `scale.sizes`.
    """
    wanted = set(groups) | set(GLOBAL_KEYS)
    picked = [o for o in overrides if override_key(o).split(".", 1)[0] in wanted]
    if family is None:
        return picked
    keys = graph_keys(family)
    out = []
    for o in picked:
        key = override_key(o)
        if key in ("graph", "graph.n", "graph.family") or (key.startswith("graph.") and key.split(".", 1)[1] not in keys):
            continue
        out.append(o)
    return out


def graph_keys(family: str) -> set[str]:
    """The keys of `configs/graph/<family>.yaml`."""
    import yaml

    path = config_dir() / "graph" / f"{family}.yaml"
    if not path.exists():
        raise ConfigError(f"graph.family={family!r}: no config {path}")
    return set(yaml.safe_load(path.read_text()) or {})
