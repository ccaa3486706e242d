"""A controller-study arm's artifacts (stage `control`): its `summary.json` (which arm replayed which trajectory,
and its tokens, errors and evidence coverage, `control.replay.summarize`; written last, so its presence means the
arm is complete; Table 4-6's rows, the matched budget of `-matched` arms and the site's step viewer read it), its
per-step `steps.parquet` and its access `counts.npz`."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class DesignPlan(Record):
    """A run's `plan.json` from the design check (stage `design_check`): the steps a model predictor is called at
    and each one's weight (1 for a step some claim pair tells apart, 1/`control.plan_sample` for a sampled other),
    and the arms it was made for. The arms' controller jobs read it instead of predicting at every step."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "design-check plan.json"
    rule: ClassVar[str] = "design_check"

    family: str
    seed: int
    arms: list[str]
    replayed_steps: int
    informative_steps: int
    sample: float
    steps: list[int]
    weights: list[float]
