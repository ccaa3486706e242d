"""A controller-study arm's `summary.json` (stage `control`): which arm replayed which trajectory, and its
tokens, errors and evidence coverage (`control.replay.summarize`). Written last, so its presence means the arm is
complete; Table 4-6's rows, the matched budget of `-matched` arms and the site's step viewer read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.base import Record


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
    format_version: ClassVar[int] = 1
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
    predictor_unknown: int | None = None  # a model predictor's UNKNOWN replies (None: the programmatic predictor)
    predictor_malformed: int | None = None  # ... and replies without a state code
