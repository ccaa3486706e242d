"""The filesystem-memory study's share of the DAG: the LoCoMo stores and answers, the tables per conversation
and Table 13, and the study's runs (main, harness, strength, replicates) with the table each study stage writes."""

from __future__ import annotations

from functools import cached_property

from tailmem import outputs, paths
from tailmem.fsmem import run_list as fsmem_runs
from tailmem.fsmem.benchmarks import MAIN_BENCHMARK, conversation_ids
from tailmem.plan import StudyPlan
from tailmem.roles import PROGRAMMATIC


class FsmemPlan(StudyPlan):
    needs_data = True

    @cached_property
    def targets(self) -> list[str]:
        return self.fsmem_tables + self.fsmem_study_targets

    @cached_property
    def claims(self) -> list[str]:
        return self.fsmem_tables + self.fsmem_study["fsmem_claims"][0]

    @staticmethod
    def store_args(wc) -> list[str]:
        return [f"fsmem.benchmark={wc.bench}", f"fsmem.conversation={wc.conv}", f"fsmem.variant={wc.variant}"]

    def answer_args(self, wc) -> list[str]:
        return self.store_args(wc) + [f"fsmem.harness={wc.harness}"]

    fsmem_files = staticmethod(fsmem_runs.run_files)

    @staticmethod
    def model(role, name) -> list[str]:
        return [] if name == PROGRAMMATIC else [f"llm.roles.{role}.model={fsmem_runs.grid_model(name)}"]

    def priced_strength_grid(self, wildcards) -> list:
        """No input: checks, when the DAG first needs a grid store, that every grid model has a price."""
        fsmem_runs.check_strength_prices(self.cfg)
        return []

    def personamem_data(self, wildcards) -> list[str]:
        """The tiers' files that exist, so the table is redone when, e.g., the shared contexts are added."""
        from tailmem.data.personamem import contexts_path, questions_path

        pm = self.cfg.fsmem.personamem
        files = [f(pm.data_dir, t) for t in pm.tiers for f in (questions_path, contexts_path)]
        return [str(f) for f in files if f.exists()]

    @cached_property
    def fsmem_tables(self) -> list[str]:
        """One LoCoMo table per configured conversation, and paper 2's Table 13 (conv-50 without D.2's golds)."""
        main = MAIN_BENCHMARK
        tables = [outputs.conversation_table(main, conv) for conv in conversation_ids(self.cfg.fsmem, main)]
        return [f for stem in tables for f in self.table(stem)] + self.table13

    @cached_property
    def table13(self) -> list[str]:
        return self.table(outputs.TABLE13_LOCOMO_FILTERED)

    @cached_property
    def fsmem_main(self):
        return fsmem_runs.main_runs(self.cfg)

    @cached_property
    def fsmem_harness(self):
        return fsmem_runs.harness_runs(self.cfg)

    @cached_property
    def fsmem_strength(self):
        return fsmem_runs.strength_runs(self.cfg)

    @cached_property
    def fsmem_replicates(self):
        return fsmem_runs.replicate_runs(self.cfg)

    @cached_property
    def fsmem_study(self) -> dict:
        """Study stage -> (its output files, the runs it reads); each study rule is named after its stage."""
        main, harness, strength = self.fsmem_main, self.fsmem_harness, self.fsmem_strength
        runs = {
            "fsmem_shape": main,
            "fsmem_retrieval": main,
            "fsmem_strength": strength,
            "fsmem_harness": harness,
            "fsmem_hierarchy": main + harness,
            "fsmem_costs": main + harness + strength + self.fsmem_replicates,
            "fsmem_replicates": self.fsmem_replicates,  # table fsmem_store_replicates
            "fsmem_claims": main + harness + strength,  # table claims_fsmem
        }
        return {stage: (self.table(outputs.FSMEM_STUDY_TABLES[stage]), r) for stage, r in runs.items()}

    @cached_property
    def fsmem_growth_outputs(self) -> list[str]:
        folder = paths.TABLES.format(results=self.results)
        return (
            self.table(outputs.FSMEM_GROWTH)
            + [f"{folder}/{outputs.FSMEM_GROWTH}_atlas.csv"]
            + self.figure(outputs.FSMEM_GROWTH)
        )

    @cached_property
    def fsmem_access_outputs(self) -> list[str]:
        folder = paths.TABLES.format(results=self.results)
        return (
            self.table(outputs.FSMEM_ACCESS)
            + [f"{folder}/{outputs.FSMEM_ACCESS_CCDF}.csv"]
            + [f for unit in outputs.FSMEM_ACCESS_UNITS for f in self.figure(f"{outputs.FSMEM_ACCESS_CCDF}_{unit}")]
        )

    @cached_property
    def fsmem_personamem_outputs(self) -> list[str]:
        return self.table(outputs.FSMEM_PERSONAMEM)

    @cached_property
    def fsmem_study_targets(self) -> list[str]:
        return (
            [f for outs, _ in self.fsmem_study.values() for f in outs]
            + self.fsmem_growth_outputs
            + self.fsmem_access_outputs
            + self.fsmem_personamem_outputs
        )
