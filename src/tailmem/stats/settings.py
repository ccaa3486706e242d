"""The typed reader of the `stats` config group: the level, resample count, RNG seed, minimum units and margins
of every claim.

A module of its own (like `stages/audit_settings.py`) so the config schema can read the same rules when a DAG is
composed without importing numpy or scipy.
"""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.config_types import Int, Num, check

RULES = {
    "confidence": Num(lo=0, hi=1, lo_open=True, hi_open=True),
    # fewer replicates than this make a 95% percentile interval's ends rest on a handful of draws
    "resamples": Int(lo=100),
    "seed": Int(lo=0),
    # below this many independent units a row is INCONCLUSIVE whatever its interval says (docs/stats.md: why 6)
    "min_units": Int(lo=1),
    "margins.tokens_rel": Num(lo=0, hi=1),
    "margins.gini": Num(lo=0, hi=1),
    "margins.fsmem_tie": Num(lo=0, hi=1),
}


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


def _get(tree, dotted: str):
    for part in dotted.split("."):
        tree = tree.get(part) if hasattr(tree, "get") else None
    return tree


def settings(cfg) -> StatsSettings:
    """Validate cfg.stats before any work; every error names its key."""
    group = cfg.get("stats") or {}
    value = {k: check(f"stats.{k}", _get(group, k), rule) for k, rule in RULES.items()}
    return StatsSettings(
        confidence=float(value["confidence"]),
        resamples=int(value["resamples"]),
        seed=int(value["seed"]),
        min_units=int(value["min_units"]),
        tokens_margin=float(value["margins.tokens_rel"]),
        gini_margin=float(value["margins.gini"]),
        fsmem_tie_margin=float(value["margins.fsmem_tie"]),
    )
