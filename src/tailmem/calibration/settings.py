"""The `calibration` group read into `CalibrationSettings`: the searched space, the worlds, the loss and the
tolerance. Keys, types and ranges are the schema's (tailmem.settings.calibration); the rules that tie its keys
together are here, in `CalibrationSettings.__post_init__`."""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.errors import ConfigError
from tailmem.settings.calibration import ITEMS, SIGMA_UNITS, TABLE7_FAMILIES  # noqa: F401  (read from here too)

PAPER_SIZES = (100, 500, 1000)  # the sizes paper 1's Tables 2 and 7 report


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
            raise ConfigError(
                f"calibration.holdout={self.holdout!r}: expected one of calibration.families {list(self.families)}"
            )
        if len(self.families) < 2:
            raise ConfigError(f"calibration.families={list(self.families)}: expected at least two (one is held out)")
        if len(set(self.sizes)) < 2 or not set(self.sizes) <= set(PAPER_SIZES):
            raise ConfigError(
                f"calibration.sizes={list(self.sizes)}: expected at least two of paper 1's sizes "
                f"{list(PAPER_SIZES)} (Table 2's slope needs two)"
            )
        if self.table8_size not in self.sizes:
            raise ConfigError(
                f"calibration.table8_size={self.table8_size}: expected one of calibration.sizes {list(self.sizes)}"
            )
        for key, values in vars(self.space).items():
            if not values:
                raise ConfigError(f"calibration.space.{key}: expected at least one value")

    @property
    def fitted(self) -> tuple[str, ...]:
        """The families the search fits (all but the held-out one)."""
        return tuple(f for f in self.families if f != self.holdout)


def settings(cfg) -> CalibrationSettings:
    """The `calibration` group of `cfg`, checked by its schema and by the rules above."""
    from tailmem.settings.calibration import CalibrationGroup
    from tailmem.settings.checks import typed

    g = typed(cfg, "calibration", CalibrationGroup)
    space = Space(*(tuple(getattr(g.space, k)) for k in ("episodes", "steps", "start", "k", "items", "sigma_unit")))
    return CalibrationSettings(
        families=tuple(g.families),
        holdout=str(g.holdout),
        sizes=tuple(int(n) for n in g.sizes),
        seeds=tuple(int(s) for s in g.seeds),
        table8_size=int(g.table8_size),
        space=space,
        samples=None if g.samples is None else int(g.samples),
        search_seed=int(g.search_seed),
        tolerance=float(g.tolerance),
        order_weight=float(g.order_weight),
    )
