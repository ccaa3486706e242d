"""How the model code gets the `llm` group: the schema's own object (tailmem.settings.llm.LLMGroup), read from a
config or, outside a stage (a test, a benchmark), from the shipped YAML, so that no second copy of its defaults
exists. A role's keys after inheritance, the price table and the call cache's file are read off that object by the
functions beside the schema (tailmem.settings.llm: `role_settings`, `prices`, `cache_path`), whose checks run
them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tailmem.settings.llm import LLMGroup, price_entries, read

if TYPE_CHECKING:
    from omegaconf import DictConfig


def settings(cfg) -> LLMGroup:
    """The `llm` group of `cfg` (the whole config), checked by its schema (every error names its key)."""
    return read(cfg)


def prices_of(cfg: DictConfig) -> dict:
    """The price table of the composed config `cfg` (empty without an llm group), for stages that price episodes
    (a stage passes its settings' `composed`)."""
    llm = cfg.get("llm")
    return price_entries(llm) if llm else {}


def shipped(**changes) -> LLMGroup:
    """The group of `configs/llm/offline.yaml` with `changes` (top-level keys; `roles` replaces the preset's
    roles): what a test runs clients with when it composes no config, so no second copy of the defaults exists."""
    return read({"llm": shipped_tree(**changes)})


def shipped_tree(**changes) -> dict:
    """`shipped` as plain data (the `llm` node of a whole-config dict)."""
    import yaml

    from tailmem.config_files import config_folder

    node = yaml.safe_load((config_folder() / "llm" / "offline.yaml").read_text())
    node.pop("defaults", None)
    return {**node, **changes}
