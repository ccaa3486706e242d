"""The `alfworld` group: the text-only environment, paper 1's observation memory, paper 2's skill setting.

`arms` maps an arm name to a memory controller's settings (`name` picks configs/memory/<name>.yaml, the other keys
override it): an open mapping whose keys are read against the controller's dataclass by tailmem.memory.group.check,
which needs the controllers (above the settings) and so runs where the composed config is checked whole
(tailmem.validation). The names the other keys accept are defined here, and the ALFWorld code imports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from tailmem.roles import BUILDER, EXECUTOR, SEARCHER
from tailmem.settings.checks import Problems

# Each list is read by a module of the study's package tailmem.studies.alfworld.play (named in brackets).
SPLITS = ("valid_seen", "valid_unseen")  # a subset besides `smoke` (games)
EXECUTORS = ("react", "choose")  # `model_executor`: ReAct or choose an offered action (executor)
# `model_roles`: executor acts; builder curates the store; searcher retrieves (layout)
ROLES = (EXECUTOR, BUILDER, SEARCHER)
# the skill settings a store is curated under (curator)
VARIANTS = ("no_store", "episode_log", "curated_skills", "curated_skills_memory", "guidance_synthesis")
PROTOCOLS = ("three_chain", "full_chain", "reversed_chain")  # how the game order is chained (chain)


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
        p = Problems("alfworld")
        subsets = ["smoke", *SPLITS]
        p.names("subsets", self.subsets, subsets, empty=True)  # none: a slice whose design cannot decide a game claim
        p.one_of("subset", self.subset, subsets)
        p.integer("max_games", self.max_games, lo=1, null=True)
        p.integer("max_steps", self.max_steps, lo=1)
        p.one_of("model_executor", self.model_executor, EXECUTORS)
        p.names("model_roles", self.model_roles, ROLES)
        p.strings("smoke_games", self.smoke_games)
        p.names("variants", self.variants, VARIANTS)
        p.names("protocols", self.protocols, PROTOCOLS)
        p.one_of("variant", self.variant, VARIANTS)
        p.one_of("protocol", self.protocol, PROTOCOLS)
        p.integers("seeds", self.seeds, lo=0)
        p.integer("seed", self.seed, lo=0)
        for name in ("retrieval_k", "curator_rounds", "retriever_rounds"):
            p.integer(name, getattr(self, name), lo=1)
        arms = dict(self.arms) if isinstance(self.arms, dict) else {}  # each one's settings: memory.group.check
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
