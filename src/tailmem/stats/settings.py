"""The `stats` group read into `StatsSettings`: the level, resample count, RNG seed, minimum units and margins
of every claim. Its keys, types and ranges are the schema's (tailmem.settings.stats); this is the flat object the
claims read."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StatsSettings:
    """The validated `stats` config group."""

    confidence: float = 0.95
    resamples: int = 2000
    seed: int = 0
    min_units: int = 6  # the smallest n at which an exact one-sided test can reach 0.025: 1/64 (docs/stats.md)
    tokens_margin: float = 0.01  # relative, of the reference arm's tokens per step
    gini_margin: float = 0.05  # absolute
    fsmem_tie_margin: float = 0.05  # absolute, of correctness (judge accuracy or F1) per question

    @property
    def alpha(self) -> float:
        """The one-sided level of every test: a claim's side lies beyond one end of the two-sided interval."""
        return (1.0 - self.confidence) / 2.0


def settings(cfg) -> StatsSettings:
    """The `stats` group of `cfg`, checked by its schema (every error names its key)."""
    from tailmem.settings.checks import typed
    from tailmem.settings.stats import StatsGroup

    group = typed(cfg, "stats", StatsGroup)
    return StatsSettings(
        confidence=float(group.confidence),
        resamples=int(group.resamples),
        seed=int(group.seed),
        min_units=int(group.min_units),
        tokens_margin=float(group.margins.tokens_rel),
        gini_margin=float(group.margins.gini),
        fsmem_tie_margin=float(group.margins.fsmem_tie),
    )
