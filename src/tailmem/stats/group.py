"""How the claims get the `stats` group: the schema's own object (tailmem.settings.stats.StatsGroup), read from a
config or, outside a stage (a test, a benchmark), from the shipped YAML, so that no second copy of its defaults
exists."""

from __future__ import annotations

from tailmem.settings.checks import typed
from tailmem.settings.stats import StatsGroup


def settings(cfg) -> StatsGroup:
    """The `stats` group of `cfg`, checked by its schema (every error names its key)."""
    return typed(cfg, "stats", StatsGroup)


def shipped(**changes) -> StatsGroup:
    """The `stats` group of `configs/stats/default.yaml` with `changes` (top-level keys, e.g. `resamples=500`):
    the settings a test or a benchmark runs claims with when it composes no config."""
    import yaml

    from tailmem.config_files import config_folder

    node = yaml.safe_load((config_folder() / "stats" / "default.yaml").read_text())
    return settings({"stats": {**node, **changes}})
