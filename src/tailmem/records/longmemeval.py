"""A LongMemEval run's `summary.json` (stage `longmemeval`, one dataset and seed): per arm its mean prompt tokens,
accuracy and evidence coverage, the context check, and with a model the run's cost. Written last, so its presence
means the run (rows.parquet beside it, the last record) is complete; the report reads it before the rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.base import Record
from tailmem.records.table import TableRecord


@dataclass(frozen=True)
class ArmStats:
    prompt_tokens: float
    accuracy: float
    coverage: float


@dataclass(frozen=True)
class ContextCheck:
    """Graph Memory without the answer-bearing turns (`longmemeval.context_check` questions)."""

    questions: int
    accuracy_without_evidence: float | None


@dataclass(frozen=True)
class LongMemEvalSummary(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "LongMemEval run summary.json"
    rule: ClassVar[str] = "longmemeval_run"  # the Snakemake rule that writes it

    dataset: str
    seed: int
    questions: int
    answerer: str
    judge: str | None
    arms: dict[str, ArmStats]
    context_check: ContextCheck
    model: dict | None  # a model run's cost (stages.longmemeval.model_accounting: keys by backend); None offline


@dataclass(frozen=True, eq=False)
class LongMemEvalRows(TableRecord):
    """A run's `rows.parquet`: one row per question and arm (`studies.longmemeval.evaluate.score`: the built prompt's
    tokens and coverage, the answer and its verdict; columns vary with the model and judge). The report, the judge
    panel and the site's question pages read it."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "LongMemEval run rows.parquet"
    rule: ClassVar[str] = "longmemeval_run"
    # what every reader relies on (more follow: label, budget, tokens, memory and marks, a judge's verdict)
    columns: ClassVar[tuple[str, ...]] = (
        "qid",
        "question_type",
        "seed",
        "arm",
        "question",
        "answer",
        "gold",
        "correct",
        "dataset",
    )
