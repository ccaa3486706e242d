"""The `calibration` group: the searched protocol space, the worlds, the loss and the tolerance. The search
reads this object itself (tailmem.studies.calibration.group.settings); its checks include the rules tying its keys
together (a held-out family among the fitted ones, sizes paper 1 reports), so composing a config catches them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems
from tailmem.settings.rollout import STARTS

ITEMS = ("all", "stored")  # concentration over every state (ours), or over the stored items (visited states) only
SIGMA_UNITS = ("mean", "count")  # sigma_top10 in units of the mean count (ours), or in raw access counts
TABLE7_FAMILIES = ("uniform", "exponential", "scale_free", "modular", "mixed")  # Table 7's rows (and Table 8's)
PAPER_SIZES = (100, 500, 1000)  # the sizes paper 1's Tables 2 and 7 report


def _unset(*values) -> bool:
    """Whether any value is still the schema's MISSING (a default object), which the joint rules skip."""
    return any(isinstance(v, str) and v == MISSING for v in values)


@dataclass
class SpaceGroup:
    """The searched values of each open parameter of the access protocol (tailmem.studies.calibration.protocol)."""

    episodes: List[int] = MISSING
    steps: List[int] = MISSING
    start: List[str] = MISSING
    k: List[int] = MISSING
    items: List[str] = MISSING
    sigma_unit: List[str] = MISSING

    def __post_init__(self) -> None:
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
    samples: Optional[int] = MISSING  # null: every protocol of the space (a grid); else this many drawn
    search_seed: int = MISSING
    tolerance: float = MISSING  # a cell is reached when |ours - paper| <= tolerance * |paper|
    order_weight: float = MISSING  # loss per Table 8 relation our Ginis break

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
        if _unset(self.families, self.holdout, self.sizes, self.table8_size):
            return
        if self.holdout not in self.families:
            p.check("holdout", self.holdout, f"expected one of calibration.families {list(self.families)}")
        if len(self.families) < 2:
            p.check("families", self.families, "expected at least two (one is held out)")
        if len(set(self.sizes)) < 2 or not set(self.sizes) <= set(PAPER_SIZES):
            p.check(
                "sizes",
                self.sizes,
                f"expected at least two of paper 1's sizes {list(PAPER_SIZES)} (Table 2's slope needs two)",
            )
        if self.table8_size not in self.sizes:
            p.check("table8_size", self.table8_size, f"expected one of calibration.sizes {list(self.sizes)}")
        p.raise_any()

    @property
    def fitted(self) -> tuple[str, ...]:
        """The families the search fits (all but the held-out one)."""
        return tuple(f for f in self.families if f != self.holdout)
