"""A study's rows of the design check's table (stage `<study>_design_rows`): what each model-played study plans
before any call, written by the study from its own config groups and gathered by stage `design_table`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.base import Record


@dataclass(frozen=True)
class DesignRows(Record):
    """`rows`: the study's rows of the design_check table, one dict per claim (column -> value, NaN kept: JSON's
    NaN reads back as the same float); `note`: what the rows show, for the table's note (empty: a stated-effect
    row, which the table's note describes once for every study, `tailmem.power.stated.note`)."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "design-check rows"
    rule: ClassVar[str] = "<study>_design_rows"

    study: str
    rows: list[dict]
    note: str = ""
