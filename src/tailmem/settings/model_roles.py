"""The `model_roles` section: a model slice's role probe (how many items each probe plays, and the floors past which
a role is marked below floor)."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from tailmem.settings.checks import Problems

FLOORS = (
    "searcher_looked_up",
    "searcher_correct",
    "malformed_per_round",
    "capped",
    "predictor_with_evidence",
    "judge_agreement",
    "unreadable",
)


@dataclass
class Floors:
    """A figure past its floor marks the role `below floor` (each a share in [0, 1])."""

    searcher_looked_up: float = MISSING
    searcher_correct: float = MISSING
    malformed_per_round: float = MISSING
    capped: float = MISSING
    predictor_with_evidence: float = MISSING
    judge_agreement: float = MISSING
    unreadable: float = MISSING

    def __post_init__(self) -> None:
        p = Problems("model_roles.floors")
        for name in FLOORS:
            p.number(name, getattr(self, name), 0, 1)
        p.raise_any()


@dataclass
class ModelRolesGroup:
    judge_probe_items: int = MISSING
    policy_probe_steps: int = MISSING
    floors: Floors = MISSING

    def __post_init__(self) -> None:
        p = Problems("model_roles")
        p.integer("judge_probe_items", self.judge_probe_items, lo=0)
        p.integer("policy_probe_steps", self.policy_probe_steps, lo=0)
        p.raise_any()
