"""The `power` section: what the design check plans a claim's power against (tailmem.power), the stated effects
of the studies planned without a twin and the measured seconds a call of each role costs."""

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
class PowerGroup:
    """The `power` section: what the design check plans a claim's power against (tailmem.power.paired). Apart
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
