"""The `control` section (the controller study's matched replay) and `model_roles` (a model slice's role probe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from omegaconf import MISSING

from tailmem.errors import ConfigError
from tailmem.settings.checks import Problems


@dataclass
class ControlGroup:
    arm: Optional[str] = MISSING  # readable arm name (tailmem.control.arms); set by Snakemake
    world: Optional[str] = MISSING  # world folder; null = derived from graph/seed
    budget_from: Optional[str] = MISSING  # summary.json whose tokens a `memory.budget=matched` spends
    tail_fraction: float = MISSING
    replay_steps: Optional[int] = MISSING
    predict_steps: Optional[int] = MISSING
    predict_spread: str = MISSING  # even | last
    budget_scope: str = MISSING  # prompt | memory: what memory.budget counts in the controller study
    plan: bool = MISSING  # the predictor is called at the design check's plan (plan_file) only
    plan_file: Optional[str] = MISSING  # the run's plan.json; set by Snakemake
    plan_calls: int = MISSING  # informative steps per run a plan calls (drawn from those some claim pair tells apart)
    plan_sample: float = MISSING  # share of the steps no claim pair tells apart that a plan still calls

    def __post_init__(self) -> None:
        p = Problems("control")
        p.one_of("budget_scope", self.budget_scope, ["prompt", "memory"])
        p.number("plan_sample", self.plan_sample, 0, 1, lo_open=True)
        p.integer("plan_calls", self.plan_calls, lo=1)
        p.number("tail_fraction", self.tail_fraction, 0, 1, lo_open=True)
        p.integer("replay_steps", self.replay_steps, lo=1, null=True)
        p.integer("predict_steps", self.predict_steps, lo=1, null=True)
        p.one_of("predict_spread", self.predict_spread, ["even", "last"])
        if self.arm is not None and self.arm != MISSING:
            from tailmem.control.arms import overrides

            try:
                overrides(self.arm)
            except ConfigError as exc:  # what the arm parser says was expected
                text = str(exc)
                p.check("arm", self.arm, text[text.index("expected ") :] if "expected " in text else text)
        p.raise_any()


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
