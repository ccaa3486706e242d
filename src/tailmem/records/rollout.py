"""A rollout's `trace.npz` (stage `rollout`): where the agent went and which items entered its context, step by
step (`rollout.trace.Trace`, which checks the arrays agree when it loads one). The tail audit, Figure 3 and the
controller report read only its `counts`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.arrays import ArrayRecord

TRACE_ARRAYS = ("states", "actions", "episode", "access_step", "access_item", "counts")


@dataclass(frozen=True, eq=False)
class RolloutTrace(ArrayRecord):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "rollout trace.npz"
    rule: ClassVar[str] = "rollout"  # the Snakemake rule that writes it
    names: ClassVar[tuple[str, ...]] = TRACE_ARRAYS
