"""The LongMemEval study's share of the DAG: one run per dataset and seed, the tables and Figure 8."""

from __future__ import annotations

from functools import cached_property

from tailmem import outputs
from tailmem.haystack.rows import summary_files
from tailmem.plan import StudyPlan


class LongMemEvalPlan(StudyPlan):
    needs_data = True

    @cached_property
    def targets(self) -> list[str]:
        return self.longmemeval_tables + self.longmemeval_figures

    @cached_property
    def longmemeval_tables(self) -> list[str]:
        return self.tables(outputs.LONGMEMEVAL_TABLES)

    @cached_property
    def longmemeval_figures(self) -> list[str]:
        return self.figure(outputs.LONGMEMEVAL_FIGURE)

    @cached_property
    def longmemeval_summaries(self) -> list[str]:
        """Every LongMemEval run's summary.json (one per dataset and seed)."""
        return summary_files(self.cfg, self.results)
