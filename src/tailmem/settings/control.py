"""The `control` section: the controller study's matched replay (which arm, how its budget is read, how many steps
the predictor is asked at)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems


@dataclass
class ControlGroup:
    # readable arm name, set by Snakemake; checked by its parser (tailmem.memory.arm_names.arm_problem), which reads the
    # controllers, where the composed config is checked whole (tailmem.validation)
    arm: Optional[str] = MISSING
    world: Optional[str] = MISSING  # world folder; null = derived from graph/seed
    matched_from: Optional[str] = MISSING  # summary.json whose tokens a `memory.budget=matched` spends
    tail_fraction: float = MISSING
    replay_steps: Optional[int] = MISSING
    predict_steps: Optional[int] = MISSING
    predict_spread: str = MISSING  # even | last
    budget_scope: str = MISSING  # prompt | memory: what memory.budget counts in the controller study
    plan: bool = MISSING  # the predictor is called at the design check's plan (plan_file) only
    plan_file: Optional[str] = MISSING  # the run's plan.json; set by Snakemake
    plan_calls: int = MISSING  # informative steps per run a plan calls (drawn from those some claim pair tells apart)
    plan_sample: float = MISSING  # share of the steps no claim pair tells apart that a plan still calls
    plan_budget_s: Optional[float] = MISSING  # core-seconds of predictor calls a plan spends for decisions (at
    # power.call_seconds); null: plan_calls per pair of arms

    def __post_init__(self) -> None:
        p = Problems("control")
        p.one_of("budget_scope", self.budget_scope, ["prompt", "memory"])
        p.number("plan_sample", self.plan_sample, 0, 1, lo_open=True)
        p.integer("plan_calls", self.plan_calls, lo=1)
        p.number("plan_budget_s", self.plan_budget_s, lo=0, null=True)
        p.number("tail_fraction", self.tail_fraction, 0, 1, lo_open=True)
        p.integer("replay_steps", self.replay_steps, lo=1, null=True)
        p.integer("predict_steps", self.predict_steps, lo=1, null=True)
        p.one_of("predict_spread", self.predict_spread, ["even", "last"])
        p.raise_any()
