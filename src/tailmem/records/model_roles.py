"""The policy probe's rows (stage `policy_probe`), which the role probe's table (stage `model_roles`) reads: a file
of its own so the probe, which reads nothing the slice makes, runs beside the slice's other model jobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.base import Record


@dataclass(frozen=True)
class PolicyProbeRows(Record):
    """`rows`: the policy's rows of the model_roles table (role, figure, value, items, floor, verdict), as
    `tailmem.studies.model_roles.probe.policy_probe` makes them."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "policy probe rows"
    rule: ClassVar[str] = "policy_probe"

    rows: list[dict]
