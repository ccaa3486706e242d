"""The judge panel's `judge_sensitivity.verdicts.parquet` (stage `judge_sensitivity`): one row per answer and
judge, the verdict (1/0, NaN unreadable) with the judge's reply, seconds and cache hit. The claims stages
(claims_fsmem, the LongMemEval report) read the verdicts back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.table import TableRecord
from tailmem.roles import JUDGE


@dataclass(frozen=True, eq=False)
class JudgeVerdicts(TableRecord):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "judge verdicts parquet"
    rule: ClassVar[str] = "judge_sensitivity"  # the Snakemake rule that writes it
    columns: ClassVar[tuple[str, ...]] = (
        "source",
        "benchmark",
        "answers",  # the answer set the answer belongs to
        "qid",
        "unit",  # what the bootstrap clusters by
        "f1",
        JUDGE,
        "correct",
        "reply",
        "seconds",
        "from_cache",
        "kind",
    )
