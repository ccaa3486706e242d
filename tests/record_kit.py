"""Made-up artifact records for tests that need a file a stage would write: every field a placeholder of its type
(nested records too), the fields a test reads given."""

from __future__ import annotations

import dataclasses
import typing

import numpy as np

from tailmem.records.audit import Audit
from tailmem.records.control import ControlSummary
from tailmem.records.rollout import TRACE_ARRAYS, RolloutTrace

PLACEHOLDERS = {int: 0, float: 0.0, str: "", bool: False, dict: {}}


def placeholder(cls: type, **given):
    """`cls(**given)` with every other field a placeholder: a nested dataclass of placeholders, a number 0, ''."""
    hints = typing.get_type_hints(cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in given:
            continue
        options = [t for t in (typing.get_args(hints[f.name]) or (hints[f.name],)) if t is not type(None)]
        kind = options[0]
        values[f.name] = placeholder(kind) if dataclasses.is_dataclass(kind) else PLACEHOLDERS.get(kind)
    return cls(**values, **given)


def control_summary(**given) -> ControlSummary:
    return placeholder(ControlSummary, **given)


def audit_record(concentration: dict | None = None, tail: dict | None = None, gof: dict | None = None) -> Audit:
    """An Audit whose blocks hold the given fields (the rest placeholders)."""
    hints = typing.get_type_hints(Audit)
    blocks = {"concentration": concentration, "tail": tail, "gof": gof}
    return placeholder(Audit, **{k: placeholder(hints[k], **(v or {})) for k, v in blocks.items()})


def rollout_trace(counts) -> RolloutTrace:
    """A trace.npz record holding only access counts (the other arrays empty): what the audit, Figure 3 and the
    controller report read of a rollout."""
    empty = np.zeros(0, dtype=np.int64)
    return RolloutTrace({name: np.asarray(counts) if name == "counts" else empty for name in TRACE_ARRAYS})
