"""The typed reader of the `calibration` config group: the searched space, the worlds, the loss and the tolerance.

A module of its own (like `stages/audit_settings.py`) so that the config schema can read the same rules when a DAG
is composed without importing numpy.
"""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.config_types import Int, ListOf, Num, Str, check
from tailmem.errors import ConfigError

PAPER_SIZES = (100, 500, 1000)  # the sizes paper 1's Tables 2 and 7 report
TABLE7_FAMILIES = ("uniform", "exponential", "scale_free", "modular", "mixed")  # Table 7's rows (and Table 8's)
ITEMS = ("all", "stored")  # concentration over every state (ours), or over the stored items (visited states) only
SIGMA_UNITS = ("mean", "count")  # sigma_top10 in units of the mean count (ours), or in raw access counts


def _starts():
    from tailmem.rollout.settings import STARTS

    return STARTS


RULES = {
    "families": ListOf(Str(TABLE7_FAMILIES)),
    "holdout": Str(TABLE7_FAMILIES),
    "sizes": ListOf(Int(lo=1)),
    "seeds": ListOf(Int(lo=0)),
    "table8_size": Int(lo=1),
    "space.episodes": ListOf(Int(lo=1)),
    "space.steps": ListOf(Int(lo=1)),
    "space.start": ListOf(Str(_starts)),
    "space.k": ListOf(Int(lo=1)),
    "space.items": ListOf(Str(ITEMS)),
    "space.sigma_unit": ListOf(Str(SIGMA_UNITS)),
    "samples": Int(lo=1, null=True),
    "search_seed": Int(lo=0),
    "tolerance": Num(lo=0, lo_open=True),
    "order_weight": Num(lo=0),
}


@dataclass(frozen=True)
class Space:
    """The searched values of each open parameter of the access protocol (see `protocol.Protocol`)."""

    episodes: tuple[int, ...]
    steps: tuple[int, ...]
    start: tuple[str, ...]
    k: tuple[int, ...]
    items: tuple[str, ...]
    sigma_unit: tuple[str, ...]


@dataclass(frozen=True)
class CalibrationSettings:
    """The validated `calibration` group."""

    families: tuple[str, ...]
    holdout: str
    sizes: tuple[int, ...]
    seeds: tuple[int, ...]
    table8_size: int
    space: Space
    samples: int | None  # None: every protocol of the space (a grid); else this many drawn without replacement
    search_seed: int
    tolerance: float  # a cell is reached when |ours - paper| <= tolerance * |paper|
    order_weight: float  # loss per Table 8 relation our Ginis break

    def __post_init__(self) -> None:
        if self.holdout not in self.families:
            raise ConfigError(f"calibration.holdout={self.holdout!r}: expected one of calibration.families "
                              f"{list(self.families)}")
        if len(self.families) < 2:
            raise ConfigError(f"calibration.families={list(self.families)}: expected at least two (one is held out)")
        if len(set(self.sizes)) < 2 or not set(self.sizes) <= set(PAPER_SIZES):
            raise ConfigError(f"calibration.sizes={list(self.sizes)}: expected at least two of paper 1's sizes "
                              f"{list(PAPER_SIZES)} (Table 2's slope needs two)")
        if self.table8_size not in self.sizes:
            raise ConfigError(f"calibration.table8_size={self.table8_size}: expected one of calibration.sizes "
                              f"{list(self.sizes)}")
        for key, values in vars(self.space).items():
            if not values:
                raise ConfigError(f"calibration.space.{key}: expected at least one value")

    @property
    def fitted(self) -> tuple[str, ...]:
        """The families the search fits (all but the held-out one)."""
        return tuple(f for f in self.families if f != self.holdout)


def _get(tree, dotted: str):
    for part in dotted.split("."):
        tree = tree.get(part) if hasattr(tree, "get") else None
    return tree


def settings(cfg) -> CalibrationSettings:
    """Validate cfg.calibration before any work; every error names its key."""
    group = cfg.get("calibration") or {}
    if not isinstance(group, dict):  # a DictConfig: plain lists for the readers
        from omegaconf import OmegaConf

        group = OmegaConf.to_container(group, resolve=True)
    v = {k: check(f"calibration.{k}", _get(group, k), rule) for k, rule in RULES.items()}
    space = Space(*(tuple(v[f"space.{k}"]) for k in ("episodes", "steps", "start", "k", "items", "sigma_unit")))
    return CalibrationSettings(
        families=tuple(v["families"]), holdout=str(v["holdout"]), sizes=tuple(int(n) for n in v["sizes"]),
        seeds=tuple(int(s) for s in v["seeds"]), table8_size=int(v["table8_size"]), space=space,
        samples=None if v["samples"] is None else int(v["samples"]), search_seed=int(v["search_seed"]),
        tolerance=float(v["tolerance"]), order_weight=float(v["order_weight"]),
    )
