"""The calibration study's share of the DAG: Table 7's calibration and the protocols it searched."""

from __future__ import annotations

from functools import cached_property

from tailmem import outputs, paths
from tailmem.plan import StudyPlan


class CalibrationPlan(StudyPlan):
    in_slice = False  # no model plays a part in the search

    @cached_property
    def targets(self) -> list[str]:
        return self.tables_calibration + [self.calibration_protocols]

    @property
    def shown(self) -> list[str]:
        return self.tables_calibration

    @cached_property
    def tables_calibration(self) -> list[str]:
        return self.table(outputs.TABLE7_CALIBRATION)

    @property
    def calibration_protocols(self) -> str:
        return f"{paths.CALIBRATION.format(results=self.results)}/{paths.CALIBRATION_PROTOCOLS}"
