"""The `scale` group: what the DAG enumerates (families x sizes x seeds, the retrieval and controller studies).

The sizes, seeds, policies and designs are checked here; the families' names are the family registry's
(`graphworld.families.FAMILIES`, which a new family joins: docs/extending.md), so their check lives beside it
(tailmem.graphworld.group.scale_problems) and runs where the composed config is checked whole (tailmem.validation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems
from tailmem.settings.graph import MIN_STATES
from tailmem.settings.rollout import DESIGNS, POLICIES


def _check_sizes(p: Problems, obj, size_keys: tuple[str, ...], sizes: tuple[str, ...]) -> None:
    for name in size_keys:
        p.integer(name, getattr(obj, name), lo=MIN_STATES)
    for name in sizes:
        p.integers(name, getattr(obj, name), lo=MIN_STATES)


ARM_SETS = ("all", "claims", "first_claim")


@dataclass
class ControlScale:
    policy: str = MISSING  # trajectory source
    retrieval: str = MISSING
    families: List[str] = MISSING
    size: int = MISSING
    seeds: List[int] = MISSING
    taus: List[float] = MISSING
    # the policy whose tails stand beside the random walk's (Table 3, Figures 3-5, the tail-shape claims); null:
    # the trajectories' own. A slice may replay the model-free proxy's trajectories for the predictor's claims
    # while a model plays the policy for the tail rows.
    tail_policy: Optional[str] = None
    # the worlds of the tail contrast (the policy, its proxy and the random walk side by side: Table 3's policy rows,
    # Figures 3-5, claims_random_walk's contrast rows; graph_runs.contrast_worlds); null: `size` and `seeds`. A model
    # slice sizes them for its claim's power apart from the controller study's trajectories.
    contrast_size: Optional[int] = None
    contrast_seeds: Optional[List[int]] = None
    # which arms run: `all` (every table's), `claims` (only the arms a claims_ctmc row compares, plus the tau
    # sweep's: a model slice spends its calls where a claim is decided; Table 4's other baselines are left out), or
    # `first_claim` (the first claims_ctmc pair's two arms, Table 5 verbose, and the tau sweep's: the predictor's
    # path at least cost)
    arms: str = "all"

    def __post_init__(self) -> None:
        p = Problems("scale.control")
        p.one_of("policy", self.policy, POLICIES)  # the config key, not the role
        p.one_of("arms", self.arms, ARM_SETS)
        if self.tail_policy is not None:
            p.one_of("tail_policy", self.tail_policy, POLICIES)
        p.one_of("retrieval", self.retrieval, DESIGNS)
        _check_sizes(p, self, ("size",), ())
        p.integers("seeds", self.seeds, lo=0)
        if self.contrast_size is not None:
            _check_sizes(p, self, ("contrast_size",), ())
        if self.contrast_seeds is not None:
            p.integers("contrast_seeds", self.contrast_seeds, lo=0)
        p.numbers("taus", self.taus, lo=0)
        p.raise_any()


@dataclass
class ScaleGroup:
    name: str = MISSING
    model_slice: Optional[str] = MISSING  # the scale option of its model slice; null: none
    families: List[str] = MISSING
    sizes: List[int] = MISSING
    seeds: List[int] = MISSING
    table_retrieval: str = MISSING
    retrieval_designs: List[str] = MISSING
    retrieval_families: List[str] = MISSING
    retrieval_size: int = MISSING
    control: ControlScale = MISSING

    def __post_init__(self) -> None:
        p = Problems("scale")
        _check_sizes(p, self, ("retrieval_size",), ("sizes",))
        p.integers("seeds", self.seeds, lo=0)
        p.one_of("table_retrieval", self.table_retrieval, DESIGNS)
        p.names("retrieval_designs", self.retrieval_designs, DESIGNS)
        p.raise_any()
