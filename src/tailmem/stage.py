"""A stage: its record (`Stage`: the function a `python -m tailmem <name>` job runs and the config groups it reads),
its declaration in a study's package (`declare`), and its typed entry (`typed_stage`).

A study declares its stages with `Stage` records in its package (`tailmem.studies.<study>.STAGES`); the registry
(tailmem.registry) gathers every study's records. Each stage function is wrapped under its name by `typed_stage`,
so it receives `tailmem.settings.stage_settings.StageSettings` (the typed objects of the groups its record lists)
whether the CLI or a test calls it with a composed config. The record comes from `DECLARED`, where the study's
package entered it when Python imported the package ahead of the stage module; the stage imports neither the
package that names it nor the registry. When a stage's artifact is current is the digests' question
(tailmem.digests).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tailmem.digests import config_digest
from tailmem.lazy import resolve

if TYPE_CHECKING:
    from omegaconf import DictConfig


@dataclass(frozen=True)
class Stage:
    """One `python -m tailmem <name>` stage: `target` is its "module:function"; `groups` the top-level config keys
    (Hydra groups or plain sections) it reads; for a stage that builds several memory arms, `arms`, the
    "module:function" giving their settings from the config. Each study declares its stages in its package
    (`STAGES`); the registry gathers them."""

    name: str
    target: str
    groups: tuple[str, ...]
    arms: str | None = None

    @property
    def module(self) -> str:
        return self.target.split(":")[0]

    def function(self):
        return resolve(self.target)

    def config_digest(self, cfg: DictConfig) -> str:
        """This stage's config digest of the composed config `cfg` (tailmem.digests)."""
        return config_digest(cfg, self.groups, arms=self.arms)


# Every stage declared so far, by name. A study's package declares its stages when it is imported, and Python
# imports a package before any module in it, so a stage module finds its own record here without importing the
# package that names it (tailmem.stage.typed_stage).
DECLARED: dict[str, Stage] = {}


def declare(*entries: Stage) -> dict[str, Stage]:
    """A study's `STAGES`: its stages by name, in the order given, each also entered in `DECLARED`."""
    for s in entries:
        if DECLARED.setdefault(s.name, s) != s:
            raise LookupError(f"stage {s.name} is declared twice: {DECLARED[s.name].target} and {s.target}")
    return {s.name: s for s in entries}


POLICY_GROUP = "policy"  # the config group of the walk policy, not the role
GRAPH_RUN = ("graph", "seed", POLICY_GROUP, "retrieval")  # the keys naming one graph-world run
FSMEM_GROUPS = ("fsmem", "llm")
ALFWORLD_GROUPS = ("alfworld", "llm")
MEMORY_ARMS = "tailmem.memory.catalogue:catalogue_payload"  # the controllers' settings a multi-arm stage builds


def typed_stage(name: str):
    """Give the decorated function the typed settings of stage `name`'s groups instead of a config; `.stage` on
    the wrapper is `name`, so the registry's entry can be checked to name this function."""
    entry = DECLARED.get(name)
    if entry is None:
        raise LookupError(f"{name} is not declared by a study's STAGES (tailmem.stage.declare)")

    def wrap(fn):
        @functools.wraps(fn)
        def run(cfg):
            from tailmem.settings.stage_settings import for_stage

            return fn(for_stage(cfg, entry.name, entry.groups, entry.arms))

        run.stage = name
        return run

    return wrap
