"""The calibration search's walk cache (stage `calibration`): one JSON file per measured walk under
`calibration/walks/<digest>/`, so a killed search resumes where it stopped. The folder's digest covers the
worlds, seeds and code the measurements depend on, so a changed input starts a fresh folder."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from tailmem.records.base import Record


@dataclass(frozen=True)
class CalibrationWalk(Record):
    # 2: the files before it carried `version: 1` instead of a format_version
    format_version: ClassVar[int] = 2
    kind: ClassVar[str] = "calibration walk cache"
    rule: ClassVar[str] = "calibration"
    cache: ClassVar[bool] = True  # outside the rule's outputs: --forcerun does not remove it

    walk: dict  # calibration.protocol.Walk's fields
    records: list[dict]  # calibration.measure's per-walk measurement records
