"""A controller-study arm's artifacts (stage `control`): its `summary.json` (which arm replayed which trajectory,
and its tokens, errors and evidence coverage, `control.replay.summarize`; written last, so its presence means the
arm is complete; Table 4-6's rows, the matched budget of `-matched` arms and the site's step viewer read it), its
per-step `steps.parquet` and its access `counts.npz`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from tailmem.records.arrays import ArrayRecord
from tailmem.records.base import Record
from tailmem.records.table import TableRecord


@dataclass(frozen=True)
class ReplayMetrics:
    """What `control.replay.summarize` measures on one replay (the keys it returns are these fields)."""

    steps: int
    predicted_steps: int
    tokens_per_step: float
    memory_tokens_per_step: float
    overall_error: float
    tail_error: float
    overall_coverage: float
    tail_coverage: float
    tail_steps: int


@dataclass(frozen=True)
class ControlSummary(Record, ReplayMetrics):
    format_version: ClassVar[int] = 2  # 2: budget_scope
    kind: ClassVar[str] = "controller-study summary.json"
    rule: ClassVar[str] = "control"  # the Snakemake rule that writes it

    arm: str
    controller: str
    label: str
    encoding: str
    budget: int | None
    tau: float | None
    order: str | None
    predictor: str
    predictor_label: str  # the predictor's folder segment: its model
    predict_steps: int | None
    predict_spread: str
    replay_steps: int | None
    trace_steps: int
    policy: str
    retrieval: str
    family: str
    n: int
    seed: int
    tokenizer: str
    budget_scope: str = "memory"  # what `budget` caps: the whole prompt per step or the memory block alone
    predictor_unknown: int | None = None  # a model predictor's UNKNOWN replies (None: the programmatic predictor)
    predictor_malformed: int | None = None  # ... and replies without a state code


@dataclass(frozen=True, eq=False)
class ControlSteps(TableRecord):
    """An arm's `steps.parquet`: one row per API-calling (predicted) step (`control.replay.replay`'s `steps`)."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "controller-study steps.parquet"
    rule: ClassVar[str] = "control"
    # what every reader relies on; the stage writes next_state, predicted, memory_tokens, n_core, n_tail and the
    # sampled steps' memory and marks too (control.replay.replay)
    columns: ClassVar[tuple[str, ...]] = ("step", "state", "correct", "covered", "prompt_tokens")


@dataclass(frozen=True, eq=False)
class ControlCounts(ArrayRecord):
    """An arm's `counts.npz`: the controller's accesses per item over the replay (Figure 6's concentration)."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "controller-study counts.npz"
    rule: ClassVar[str] = "control"
    names: ClassVar[tuple[str, ...]] = ("counts",)


@dataclass(frozen=True, eq=False)
class DesignTwin(TableRecord):
    """A run's `twin.parquet` from the design check (stage `design_check`): the model-free twin's replay of every
    claim arm, one row per arm and step, and whether the step's state is in the run's tail (`in_tail`). The plan
    (stage `design_plan`) draws the run's steps from it (tailmem.control.design.plan)."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "design-check twin.parquet"
    rule: ClassVar[str] = "design_check"
    columns: ClassVar[tuple[str, ...]] = ("arm", "step", "prompt_sha", "covered", "mentions_next", "correct", "in_tail")


@dataclass(frozen=True)
class DesignPlan(Record):
    """A run's `plan.json` from the design check's plan (stage `design_plan`, tailmem.control.design.plan): a
    uniform sample of steps shared by every arm (`steps`, `weights` 1/`control.plan_sample`: each arm's own error)
    and, per pair of arms a claim compares, the steps drawn for its difference with their weights and strata
    (`pairs`: a, b, steps, weights, strata), and whether a blind step (no block names the true next state) is known
    without a call (`blind_exact`: the predictor answers only with a state its block names). `pair_calls` says what
    each pair of arms was allotted per run (a, b, tail, other: `control.plan_calls`, or a budget's allocation,
    `budget_s`), `planned_power` each claim pair's power at its twin's effect under that allotment over every run
    of the study (claim pair label -> power; tailmem.control.design.ClaimTwin). The arms' controller jobs read it
    instead of predicting at every step; the claims read each pair's weights."""

    format_version: ClassVar[int] = 3  # 2: pairs; 3: pair_calls, planned_power, budget_s
    kind: ClassVar[str] = "design-check plan.json"
    rule: ClassVar[str] = "design_plan"

    family: str
    seed: int
    arms: list[str]
    replayed_steps: int
    informative_steps: int
    sample: float
    steps: list[int]
    weights: list[float]
    pairs: list[dict]
    blind_exact: bool  # a step where neither block names the true next state is wrong in both arms, uncalled
    pair_calls: list[dict] = field(default_factory=list)
    planned_power: dict[str, float] = field(default_factory=dict)
    budget_s: float | None = None

    def arm_calls(self, arm: str) -> dict[int, float]:
        """Step -> weight of every step `arm`'s predictor is called at: the shared sample (its weight counts in the
        arm's own error) and every step a pair of its claims drew (weight 0 there: those steps are the pair's)."""
        out = {int(t): 0.0 for p in self.pairs if arm in (p["a"], p["b"]) for t in p["steps"]}
        out.update({int(t): float(w) for t, w in zip(self.steps, self.weights)})
        return out
