"""The ALFWorld study's share of the DAG: per subset, the games, the memory and skill cells and the report."""

from __future__ import annotations

from functools import cached_property

from tailmem import outputs
from tailmem.plan import StudyPlan


class AlfworldPlan(StudyPlan):
    needs_data = True
    extra = "alfworld"  # needs the `alfworld` install extra (`snakemake all_but_alfworld` leaves it out)

    @cached_property
    def targets(self) -> list[str]:
        return [t for s in self.cfg.alfworld.subsets for t in self.alf_outputs(s)]

    def alf_outputs(self, subset) -> list[str]:
        """Every table and figure the ALFWorld report writes for a subset (a name or the "{subset}" wildcard)."""
        tables = (*outputs.ALFWORLD_TABLES, *outputs.ALFWORLD_SKILL_TABLES)
        figures = (*outputs.ALFWORLD_FIGURES, *outputs.ALFWORLD_SKILL_FIGURES)
        return (
            [f for s in tables for f in self.table(outputs.alfworld_output(subset, s))]
            + [f for s in figures for f in self.figure(outputs.alfworld_output(subset, s))]
            + self.table(outputs.claims_alfworld(subset))
        )
