"""The random-walk study's share of the DAG: its run lists and the tables and figures over them."""

from __future__ import annotations

from functools import cached_property

from tailmem import graph_runs, outputs
from tailmem.plan import GraphRunPlan


class RandomWalkPlan(GraphRunPlan):
    @cached_property
    def targets(self) -> list[str]:
        return self.tables_random_walk + self.figures_random_walk

    @cached_property
    def random_walk_runs(self):
        return graph_runs.random_walk_runs(self.cfg)

    @cached_property
    def tail_contrast_runs(self):
        """The random walk and the controller study's policy on the same worlds (the tail-shape claim)."""
        return graph_runs.tail_contrast_runs(self.cfg)

    @cached_property
    def figure_runs(self):
        """Figures 3/5: the first control seed's worlds, then the random walk at the largest size."""
        return [r for runs in graph_runs.figure_runs(self.cfg) for r in runs]

    @cached_property
    def tables_random_walk(self) -> list[str]:
        return self.tables(outputs.RANDOM_WALK_TABLES)

    @cached_property
    def figures_random_walk(self) -> list[str]:
        return self.figures_of(outputs.RANDOM_WALK_FIGURES)
