"""The `stats` group: the level, resample count, RNG seed, minimum units and margins of every claim. The claims
read this object itself (tailmem.stats.group.settings), so a key has one name and one value, the YAML's."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from tailmem.settings.checks import Problems


@dataclass
class Margins:
    tokens_rel: float = MISSING  # relative, of the reference arm's tokens per step
    gini: float = MISSING  # absolute
    fsmem_tie: float = MISSING  # absolute, of correctness (judge accuracy or F1) per question

    def __post_init__(self) -> None:
        p = Problems("stats.margins")
        for name in ("tokens_rel", "gini", "fsmem_tie"):
            p.number(name, getattr(self, name), 0, 1)
        p.raise_any()


@dataclass
class StatsGroup:
    confidence: float = MISSING
    resamples: int = MISSING  # fewer than 100 make a 95% interval's ends rest on a handful of draws
    seed: int = MISSING
    min_units: int = MISSING  # below this many independent units a row is INCONCLUSIVE (docs/stats.md: why 6)
    margins: Margins = MISSING

    def __post_init__(self) -> None:
        p = Problems("stats")
        p.number("confidence", self.confidence, 0, 1, lo_open=True, hi_open=True)
        p.integer("resamples", self.resamples, lo=100)
        p.integer("seed", self.seed, lo=0)
        p.integer("min_units", self.min_units, lo=1)
        p.raise_any()

    @property
    def alpha(self) -> float:
        """The one-sided level of every test: a claim's side lies beyond one end of the two-sided interval."""
        return (1.0 - self.confidence) / 2.0
