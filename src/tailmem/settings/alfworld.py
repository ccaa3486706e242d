"""The `alfworld` group: the text-only environment, paper 1's observation memory, paper 2's skill setting.

`arms` maps an arm name to a memory controller's settings (`name` picks configs/memory/<name>.yaml, the other keys
override it): an open mapping whose keys `memory.check` reads against the controller's dataclass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems, registry


@dataclass
class Regenerate:
    seed: int = MISSING
    expert_check: bool = MISSING

    def __post_init__(self) -> None:
        p = Problems("alfworld.regenerate")
        p.integer("seed", self.seed, lo=0)
        p.raise_any()


@dataclass
class Claims:
    order_margin: float = MISSING
    min_tie_games: int = MISSING

    def __post_init__(self) -> None:
        p = Problems("alfworld.claims")
        p.number("order_margin", self.order_margin, 0, 1)
        p.integer("min_tie_games", self.min_tie_games, lo=1)
        p.raise_any()


@dataclass
class AlfworldGroup:
    data_root: str = MISSING
    subsets: List[str] = MISSING
    subset: str = MISSING
    max_games: Optional[int] = MISSING
    max_steps: int = MISSING
    model_executor: str = MISSING
    model_roles: List[str] = MISSING
    smoke_games: List[str] = MISSING
    regenerate: Regenerate = MISSING
    arms: Dict[str, Dict[str, Any]] = MISSING
    arms_run: List[str] = MISSING
    arm: str = MISSING
    executor_arm: str = MISSING
    variants: List[str] = MISSING
    protocols: List[str] = MISSING
    variant: str = MISSING
    protocol: str = MISSING
    seeds: List[int] = MISSING
    seed: int = MISSING
    retrieval_k: int = MISSING
    curator_rounds: int = MISSING
    retriever_rounds: int = MISSING
    claims: Claims = MISSING

    def __post_init__(self) -> None:
        from tailmem.settings.memory import check as check_memory

        p = Problems("alfworld")
        subsets = ["smoke", *registry("tailmem.alfworld.games:SPLITS")]
        p.names("subsets", self.subsets, subsets, empty=True)  # none: a slice whose design cannot decide a game claim
        p.one_of("subset", self.subset, subsets)
        p.integer("max_games", self.max_games, lo=1, null=True)
        p.integer("max_steps", self.max_steps, lo=1)
        p.one_of("model_executor", self.model_executor, registry("tailmem.alfworld.executor:EXECUTORS"))
        p.names("model_roles", self.model_roles, registry("tailmem.alfworld.layout:ROLES"))
        p.strings("smoke_games", self.smoke_games)
        variants, protocols = (
            registry("tailmem.alfworld.curator:VARIANTS"),
            registry("tailmem.alfworld.chain:PROTOCOLS"),
        )
        p.names("variants", self.variants, variants)
        p.names("protocols", self.protocols, protocols)
        p.one_of("variant", self.variant, variants)
        p.one_of("protocol", self.protocol, protocols)
        p.integers("seeds", self.seeds, lo=0)
        p.integer("seed", self.seed, lo=0)
        for name in ("retrieval_k", "curator_rounds", "retriever_rounds"):
            p.integer(name, getattr(self, name), lo=1)
        arms = dict(self.arms) if isinstance(self.arms, dict) else {}
        for name, settings in arms.items():
            p.lines += check_memory(dict(settings or {}), f"alfworld.arms.{name}", arm=True)
        for key in ("arm", "executor_arm"):
            p.check(
                key,
                getattr(self, key),
                None if getattr(self, key) in arms else f"expected one of alfworld.arms {list(arms)}",
            )
        p.check(
            "arms_run",
            self.arms_run,
            next(
                (
                    f"item {i} ({a!r}): expected one of alfworld.arms {list(arms)}"
                    for i, a in enumerate(self.arms_run or [])
                    if a not in arms
                ),
                None,
            ),
        )
        p.raise_any()
