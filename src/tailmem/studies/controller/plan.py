"""The controller study's share of the DAG: the design check per trajectory, one controller job per arm, the
report; and the artifacts each job reads (world, trajectory, the summary a matched arm's budget
spends, the plan)."""

from __future__ import annotations

from functools import cached_property

from tailmem import graph_runs, outputs, paths
from tailmem.control import arms as control_arms
from tailmem.memory import arm_names
from tailmem.plan import GraphRunPlan


class ControllerPlan(GraphRunPlan):
    @cached_property
    def targets(self) -> list[str]:
        return self.tables_control + self.figures_control

    @property
    def control_summary_file(self) -> str:
        return f"{paths.wild(paths.CONTROL, results=self.results)}/{paths.SUMMARY_FILE}"

    @property
    def design_plan_file(self) -> str:
        return f"{paths.wild(paths.DESIGN, results=self.results)}/{paths.PLAN_FILE}"

    @property
    def design_pairs_file(self) -> str:
        return f"{paths.wild(paths.DESIGN, results=self.results)}/{paths.PAIRS_FILE}"

    @property
    def design_twin_file(self) -> str:
        return f"{paths.wild(paths.DESIGN, results=self.results)}/{paths.TWIN_FILE}"

    @cached_property
    def design_pairs(self) -> list[str]:
        """Every controller-study trajectory's pairs.csv: a plan reads them all (the twin's effect and its spread
        between runs)."""
        return [f"{paths.DESIGN.format(**r.keys(self.results))}/{paths.PAIRS_FILE}" for r in self.design_runs]

    def design_inputs(self, wc) -> dict:
        """A design check's world and trajectory."""
        keys = dict(results=self.results, family=wc.family, n=wc.n, seed=wc.seed)
        run = dict(policy=wc.policy, agent=wc.agent, retrieval=wc.retrieval, **keys)
        return {
            "world": f"{paths.GRAPHWORLD.format(**keys)}/{paths.WORLD_FILE}",
            "trace": f"{paths.ROLLOUT.format(**run)}/{paths.TRACE_FILE}",
        }

    @cached_property
    def design_plans(self) -> list[str]:
        """Every controller-study trajectory's plan.json (the study's design-check rows read their pairs.csv)."""
        return [f"{paths.DESIGN.format(**r.keys(self.results))}/{paths.PLAN_FILE}" for r in self.design_runs]

    @cached_property
    def design_runs(self):
        return graph_runs.design_runs(self.cfg)

    @cached_property
    def control_runs(self):
        return graph_runs.control_runs(self.cfg)

    @cached_property
    def policy_runs(self):
        return graph_runs.policy_runs(self.cfg)

    @cached_property
    def tables_control(self) -> list[str]:
        return self.tables(outputs.CONTROL_TABLES)

    @cached_property
    def figures_control(self) -> list[str]:
        return self.figures_of(outputs.CONTROL_FIGURES)

    def control_inputs(self, wc) -> dict:
        """A controller job's world and trajectory, and the summary of the arm whose tokens a `-matched` arm's
        budget spends (`matched_from`), if any."""
        run = dict(results=self.results, family=wc.family, n=wc.n, seed=wc.seed)
        run |= dict(policy=wc.policy, agent=wc.agent, retrieval=wc.retrieval)
        inputs = self.design_inputs(wc)
        reference = control_arms.matched_reference(wc.arm)
        if reference:
            folder = paths.CONTROL.format(**run, predictor=wc.predictor, arm=reference)
            inputs["matched_from"] = f"{folder}/{paths.SUMMARY_FILE}"
        if self.cfg.control.plan:  # the predictor is called where the design check says a claim can be decided
            inputs["plan"] = f"{paths.DESIGN.format(**run)}/{paths.PLAN_FILE}"
        return inputs

    def control_args(self, wc) -> list[str]:
        """The run's overrides, then the arm's (`memory=ctmc memory.tau=1.0 ...`)."""
        return self.run_args(wc) + arm_names.graph_overrides(wc.arm) + [f"control.arm={wc.arm}"]

    @staticmethod
    def artifact_args(wc, input) -> str:
        """The input artifacts a controller job reads beside its run, as overrides: the summary a matched budget
        spends (`control.matched_from`), the plan."""
        args = [f"control.matched_from={input.matched_from}"] if "matched_from" in input.keys() else []
        if "plan" in input.keys():
            args.append(f"control.plan_file={input.plan}")
        return " ".join(args)
