"""The `calibration` group: the searched protocol space, the worlds, the loss and the tolerance
(calibration.settings reads it into `CalibrationSettings`, which adds the rules tying its keys together)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems

ITEMS = ("all", "stored")  # concentration over every state (ours), or over the stored items (visited states) only
SIGMA_UNITS = ("mean", "count")  # sigma_top10 in units of the mean count (ours), or in raw access counts
TABLE7_FAMILIES = ("uniform", "exponential", "scale_free", "modular", "mixed")  # Table 7's rows (and Table 8's)


@dataclass
class SpaceGroup:
    episodes: List[int] = MISSING
    steps: List[int] = MISSING
    start: List[str] = MISSING
    k: List[int] = MISSING
    items: List[str] = MISSING
    sigma_unit: List[str] = MISSING

    def __post_init__(self) -> None:
        from tailmem.rollout.settings import STARTS

        p = Problems("calibration.space")
        for name in ("episodes", "steps", "k"):
            p.integers(name, getattr(self, name), lo=1)
        p.names("start", self.start, STARTS)
        p.names("items", self.items, ITEMS)
        p.names("sigma_unit", self.sigma_unit, SIGMA_UNITS)
        p.raise_any()


@dataclass
class CalibrationGroup:
    families: List[str] = MISSING
    holdout: str = MISSING
    sizes: List[int] = MISSING
    seeds: List[int] = MISSING
    table8_size: int = MISSING
    space: SpaceGroup = MISSING
    samples: Optional[int] = MISSING  # null: every protocol of the space (a grid)
    search_seed: int = MISSING
    tolerance: float = MISSING
    order_weight: float = MISSING

    def __post_init__(self) -> None:
        p = Problems("calibration")
        p.names("families", self.families, TABLE7_FAMILIES)
        p.one_of("holdout", self.holdout, TABLE7_FAMILIES)
        p.integers("sizes", self.sizes, lo=1)
        p.integers("seeds", self.seeds, lo=0)
        p.integer("table8_size", self.table8_size, lo=1)
        p.integer("samples", self.samples, lo=1, null=True)
        p.integer("search_seed", self.search_seed, lo=0)
        p.number("tolerance", self.tolerance, lo=0, lo_open=True)
        p.number("order_weight", self.order_weight, lo=0)
        p.raise_any()
