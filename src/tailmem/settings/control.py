"""The `control` section (the controller study's matched replay), `power` (what its design check plans for) and
`model_roles` (a model slice's role probe)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional

from omegaconf import MISSING

from tailmem.roles import EXECUTOR, JUDGE, POLICY, PREDICTOR, SEARCHER
from tailmem.settings.checks import Problems

STUDY_ROWS = (
    "fsmem",
    "longmemeval",
    "longmemeval_context",
    "alfworld",
    "policy_tails",
    "policy_gini",
    "policy_top10_share",
    "policy_sigma_top10",
)  # the design check's rows for the other studies
ROLES_TIMED = (PREDICTOR, SEARCHER, JUDGE, "reader", EXECUTOR, POLICY)  # "reader": LongMemEval's answering searcher


@dataclass
class CallSeconds:
    """Measured seconds per model call of each role on one core (README, Language models), for the plan's cost."""

    predictor: float = MISSING
    searcher: float = MISSING
    judge: float = MISSING
    reader: float = MISSING
    executor: float = MISSING
    policy: float = MISSING  # one LLM-policy step

    def __post_init__(self) -> None:
        p = Problems("power.call_seconds")
        for name in ROLES_TIMED:
            p.number(name, getattr(self, name), lo=0, lo_open=True)
        p.raise_any()


@dataclass
class SimulatedLevel:
    """A claims row's test simulated on the twin's own per-unit differences at `units` units, drawn centred on the
    claim's boundary (benchmarks/bench_concentration_verdict.py): its false HELD read at stats.alpha (`at_alpha`)
    and the largest p the rule gives (exact or random flips) whose false HELD stays within alpha (`critical_p`, at
    which the row is read; `false_held`: its rate there). Why: a test whose assumption the data break (the sign-flip rule's
    symmetry, on skewed differences) holds its stated level only where it was simulated to."""

    units: int = MISSING
    critical_p: float = MISSING
    at_alpha: float = MISSING
    false_held: float = MISSING

    def __post_init__(self) -> None:
        p = Problems("power.stated_effects.<row>.level")
        p.integer("units", self.units, lo=1)
        for name in ("critical_p", "at_alpha", "false_held"):  # a p and two rates
            p.number(name, getattr(self, name), 0, 1)
        p.raise_any()


@dataclass
class StatedEffect:
    """A study's paired claim as the design check plans it without a twin: the effect and per-unit SD it assumes
    (or took from a measured run: the comment beside each value says which) and the model calls per unit."""

    effect: float = MISSING
    sd: float = MISSING
    calls_per_unit: Dict[str, Optional[float]] = (
        MISSING  # role -> calls per unit (policy: null = rollout episodes x steps)
    )
    source: str = MISSING  # where effect and sd come from: printed in the design_check table's note
    level: Optional[SimulatedLevel] = None  # the row's test simulated on the twin (the concentration rows'); null:
    # the row's test holds its level on the data's kind by construction (compare's outcome paths)

    def __post_init__(self) -> None:
        p = Problems("power.stated_effects")
        p.number("sd", self.sd, lo=0, lo_open=True)
        for role in self.calls_per_unit or {}:
            p.one_of("calls_per_unit", role, list(ROLES_TIMED))
        p.raise_any()


@dataclass
class ControlGroup:
    # readable arm name, set by Snakemake; checked by its parser (tailmem.control.arms.arm_problem), which reads the
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


@dataclass
class PowerGroup:
    """The `power` section: what the design check plans a claim's power against (tailmem.control.power). Apart
    from `control`, whose every key reruns the controller study: a new measured rate or stated effect changes the
    design check's table and plan, not a replay."""

    target: float = MISSING  # the power a claim is planned to reach (units_for_80 and calls_for_80 at 0.8)
    least: float = MISSING  # a claim whose power stays below this at any affordable plan gets no call
    call_seconds: CallSeconds = MISSING
    stated_effects: Dict[str, StatedEffect] = MISSING  # one per STUDY_ROWS key

    def __post_init__(self) -> None:
        p = Problems("power")
        p.number("target", self.target, 0, 1, lo_open=True, hi_open=True)
        p.number("least", self.least, 0, 1)
        if isinstance(self.stated_effects, dict):
            missing = [k for k in STUDY_ROWS if k not in self.stated_effects]
            p.check(
                "stated_effects", sorted(self.stated_effects), missing and f"expected a block for each of {missing}"
            )
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
