"""A study's share of the DAG: what its Snakemake rules name (targets, run lists, file patterns, job parameters),
computed from the composed config in the study's own `plan.py`.

A study's rule files start with `PLAN = plan_of(config, workflow.basedir, "<study>")` (tailmem.dag) and name
everything through that object, never through a name another rule file defines: so a rule reads alone, next to
its plan, and the include order of the Snakefile carries no meaning. `StudyPlan` holds what every rule uses (the
config, the job parameters and digests of a stage, log and table paths); `GraphRunPlan` adds the file patterns
of the graph world's runs, which the random-walk and controller studies both read.
"""

from __future__ import annotations

import os
from functools import cached_property

from tailmem import paths


def out_folder(wildcards, output) -> str:
    """The folder of a job's first output (its `out=`)."""
    return os.path.dirname(output[0])


class StudyPlan:
    """One study's rules' inputs under one workflow (`jobs`: tailmem.workflow.Dag, the composed config and each
    stage's command and digests). A subclass adds the study's own targets and patterns and says which of its
    products `all`, the site and a model slice ask for."""

    needs_data = False  # its stages read benchmark files: `all` asks for it only once they are all there
    in_slice = True  # a model slice runs it (False: no model plays a part, e.g. the calibration search)

    def __init__(self, jobs, basedir: str):
        self.jobs = jobs
        self.basedir = basedir  # the Snakefile's folder

    # -- what `all`, the site and the model slice ask of the study -----------------------------------------------
    @property
    def targets(self) -> list[str]:
        """Everything `all` asks of the study."""
        return []

    @property
    def shown(self) -> list[str]:
        """The products the run's website shows (the site is rebuilt when one changes)."""
        return self.targets

    @property
    def claims(self) -> list[str]:
        """What a model slice asks of the study: its headline tables."""
        return self.targets if self.in_slice else []

    # -- the config and its folders --------------------------------------------------------------------------
    @property
    def cfg(self):
        return self.jobs.cfg

    @property
    def results(self) -> str:
        return self.cfg.results_dir

    @property
    def figures(self) -> str:
        return self.cfg.figures_dir

    @property
    def conda_env(self) -> str:
        """The software of every job (with --use-conda; pins = pyproject.toml). Absolute, because the model slice
        resolves relative conda paths from the Snakefile, not from the file naming them."""
        return os.path.join(self.basedir, "environment.yml")

    # -- what every rule uses ---------------------------------------------------------------------------------
    out_folder = staticmethod(out_folder)

    def llm_slots(self, *roles: str) -> int:
        """`resources: llm_slots=` of a rule whose jobs call `roles`: the calls in flight one job may hold on a
        shared endpoint (tailmem.llm.parallel.llm_slots). `snakemake --resources llm_slots=N` then caps the calls
        in flight across all jobs; a job granted fewer than it asks for reads its grant ($TAILMEM_LLM_SLOTS, which
        the rule's shell sets from `{resources.llm_slots}`) and runs that many units at once."""
        from tailmem.llm.parallel import llm_slots

        return llm_slots(self.cfg, roles)

    def stage_params(self, stage, args=None, family=None) -> dict:
        """`params:` of a rule running `stage`: `cmd`, and the `config` and `code` digests that rerun the job
        when they change (tailmem.digests). `args(wildcards)` gives the job's overrides (`seed=1`),
        `family(wildcards)` the graph family whose keys the user's graph overrides may set."""

        def job(wc):
            return self.jobs.job(stage, tuple(args(wc)) if args else (), family(wc) if family else None)

        return dict(cmd=lambda wc: job(wc).cmd, config=lambda wc: job(wc).config, code=lambda wc: job(wc).code)

    def log_of(self, name, *keys) -> str:
        """The log file of the jobs of `name`: `<results>/logs/<name>/<key>_<key>.log` (keys are wildcard names)."""
        return paths.log_file(self.results, name, *[f"{{{k}}}" for k in keys])

    def design_rows(self, study: str) -> str:
        """The file of `study`'s rows of the design check's table (stage `<study>_design_rows`)."""
        return paths.DESIGN_ROWS.format(results=self.results, study=study)

    def table(self, stem) -> list[str]:
        return paths.table_files(self.results, stem)

    def figure(self, stem) -> list[str]:
        return paths.figure_files(self.figures, stem)

    def tables(self, stems) -> list[str]:
        return [f for stem in stems for f in self.table(stem)]

    def figures_of(self, stems) -> list[str]:
        return [f for stem in stems for f in self.figure(stem)]

    @cached_property
    def judged_inputs(self) -> list[str]:
        """What a claims stage reads to say which verdicts depend on the judge (`judges.claims`): the per-answer
        verdicts the judge-sensitivity study writes."""
        from tailmem.judges.verdicts import verdicts_path

        return [str(verdicts_path(self.results))] if self.cfg.judges.claims else []


class GraphRunPlan(StudyPlan):
    """A study over the graph world's runs: the patterns of a world, a trajectory and its audit, and the overrides
    naming one run."""

    @property
    def world_file(self) -> str:
        return f"{paths.wild(paths.GRAPHWORLD, results=self.results)}/{paths.WORLD_FILE}"

    @property
    def trace_file(self) -> str:
        return f"{paths.wild(paths.ROLLOUT, results=self.results)}/{paths.TRACE_FILE}"

    @property
    def audit_file(self) -> str:
        return f"{paths.wild(paths.AUDIT, results=self.results)}/{paths.AUDIT_FILE}"

    @staticmethod
    def family(wc) -> str:
        return wc.family

    @staticmethod
    def run_args(wc) -> list[str]:
        """The overrides naming one run: world, policy, retrieval design, seed."""
        return [
            f"graph={wc.family}",
            f"graph.n={wc.n}",
            f"seed={wc.seed}",
            f"policy={wc.policy}",
            f"retrieval={wc.retrieval}",
        ]
