"""Every input the Snakemake files name, computed from the composed config in one place.

Each `.smk` file starts with `TAILMEM = dag_of(config, workflow.basedir)` and reads its targets, run lists, file
patterns and job parameters from that object, never from a name another `.smk` file defined: so the include
order of the Snakefile carries no meaning, and a new rule file needs nothing but this module (add a property here
when another file must see its targets). `dag_of` is cached per scale and overrides, so the twelve includes share
one composition, and the model slice (the same Snakefile as a Snakemake module, with its own `config`) its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache, cached_property

from tailmem import graph_runs as targets
from tailmem import outputs, paths
from tailmem.control import arms as control_arms
from tailmem.fsmem import study as fsmem_study_runs
from tailmem.fsmem.benchmarks import MAIN_BENCHMARK, conversation_ids
from tailmem.roles import JUDGE, PROGRAMMATIC, SEARCHER
from tailmem.workflow import Dag


def dag_of(config: dict, basedir: str) -> DagInputs:
    """The inputs of the workflow run with Snakemake's `config` (`scale`, `overrides`, `slice_of`)."""
    overrides = config.get("overrides", [])
    if isinstance(overrides, str):
        overrides = [overrides]
    return _dag(str(config.get("scale", "default")), tuple(overrides), bool(config.get("slice_of")), str(basedir))


@cache
def _dag(scale: str, overrides: tuple[str, ...], in_slice: bool, basedir: str) -> DagInputs:
    return DagInputs(scale, overrides, in_slice, basedir)


def out_folder(wildcards, output) -> str:
    """The folder of a job's first output (its `out=`)."""
    return os.path.dirname(output[0])


@dataclass(eq=False)
class DagInputs:
    """The workflow of one scale and set of overrides: its config, its targets per study, its file patterns and
    the `params:` of each kind of job."""

    scale: str
    overrides: tuple[str, ...]
    in_slice: bool  # inside the model slice: its `all` is the slice's targets, and no slice is nested
    basedir: str  # the Snakefile's folder
    jobs: Dag = field(init=False)

    def __post_init__(self):
        self.jobs = Dag(self.scale, list(self.overrides))

    # -- the config and its folders ---------------------------------------------------------------------------
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

    @property
    def model_slice(self) -> str | None:
        """The scale of the model slice this run nests, or None (a slice nests none)."""
        return None if self.in_slice else self.cfg.scale.get("model_slice")

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
        when they change (tailmem.stage_groups). `args(wildcards)` gives the job's overrides (`seed=1`),
        `family(wildcards)` the graph family whose keys the user's graph overrides may set."""

        def job(wc):
            return self.jobs.job(stage, tuple(args(wc)) if args else (), family(wc) if family else None)

        return dict(cmd=lambda wc: job(wc).cmd, config=lambda wc: job(wc).config, code=lambda wc: job(wc).code)

    def log_of(self, name, *keys) -> str:
        """The log file of the jobs of `name`: `<results>/logs/<name>/<key>_<key>.log` (keys are wildcard names)."""
        return paths.log_file(self.results, name, *[f"{{{k}}}" for k in keys])

    def table(self, stem) -> list[str]:
        return paths.table_files(self.results, stem)

    def figure(self, stem) -> list[str]:
        return paths.figure_files(self.figures, stem)

    def tables(self, stems) -> list[str]:
        return [f for stem in stems for f in self.table(stem)]

    def figures_of(self, stems) -> list[str]:
        return [f for stem in stems for f in self.figure(stem)]

    # -- the graph world: file patterns, run lists, targets ---------------------------------------------------
    @property
    def world_file(self) -> str:
        return f"{paths.wild(paths.GRAPHWORLD, results=self.results)}/{paths.WORLD_FILE}"

    @property
    def trace_file(self) -> str:
        return f"{paths.wild(paths.ROLLOUT, results=self.results)}/{paths.TRACE_FILE}"

    @property
    def audit_file(self) -> str:
        return f"{paths.wild(paths.AUDIT, results=self.results)}/{paths.AUDIT_FILE}"

    @property
    def control_summary_file(self) -> str:
        return f"{paths.wild(paths.CONTROL, results=self.results)}/{paths.SUMMARY_FILE}"

    @property
    def design_plan_file(self) -> str:
        return f"{paths.wild(paths.DESIGN, results=self.results)}/{paths.PLAN_FILE}"

    @property
    def design_pairs_file(self) -> str:
        return f"{paths.wild(paths.DESIGN, results=self.results)}/{paths.PAIRS_FILE}"

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
        """Every controller-study trajectory's plan.json (the design check's table reads their pairs.csv)."""
        return [f"{paths.DESIGN.format(**r.keys(self.results))}/{paths.PLAN_FILE}" for r in self.design_runs]

    @cached_property
    def design_runs(self):
        return targets.design_runs(self.cfg)

    @cached_property
    def tables_design(self) -> list[str]:
        return self.table(outputs.DESIGN_CHECK)

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

    @cached_property
    def random_walk_runs(self):
        return targets.random_walk_runs(self.cfg)

    @cached_property
    def tail_contrast_runs(self):
        """The random walk and the controller study's policy on the same worlds (the tail-shape claim)."""
        return targets.tail_contrast_runs(self.cfg)

    @cached_property
    def figure_runs(self):
        """Figures 3/5: the first control seed's worlds, then the random walk at the largest size."""
        return [r for runs in targets.figure_runs(self.cfg) for r in runs]

    @cached_property
    def control_runs(self):
        return targets.control_runs(self.cfg)

    @cached_property
    def policy_runs(self):
        return targets.policy_runs(self.cfg)

    @cached_property
    def tables_random_walk(self) -> list[str]:
        return self.tables(outputs.RANDOM_WALK_TABLES)

    @cached_property
    def figures_random_walk(self) -> list[str]:
        return self.figures_of(outputs.RANDOM_WALK_FIGURES)

    @cached_property
    def tables_control(self) -> list[str]:
        return self.tables(outputs.CONTROL_TABLES)

    @cached_property
    def figures_control(self) -> list[str]:
        return self.figures_of(outputs.CONTROL_FIGURES)

    @cached_property
    def tables_calibration(self) -> list[str]:
        return self.table(outputs.TABLE7_CALIBRATION)

    @property
    def calibration_protocols(self) -> str:
        return f"{paths.CALIBRATION.format(results=self.results)}/{paths.CALIBRATION_PROTOCOLS}"

    def control_inputs(self, wc) -> dict:
        """A controller job's world and trajectory, and the matched arm whose tokens set its budget, if any."""
        run = dict(results=self.results, family=wc.family, n=wc.n, seed=wc.seed)
        run |= dict(policy=wc.policy, agent=wc.agent, retrieval=wc.retrieval)
        inputs = self.design_inputs(wc)
        reference = control_arms.matched_reference(wc.arm)
        if reference:
            budget = paths.CONTROL.format(**run, predictor=wc.predictor, arm=reference)
            inputs["budget"] = f"{budget}/{paths.SUMMARY_FILE}"
        if self.cfg.control.plan:  # the predictor is called where the design check says a claim can be decided
            inputs["plan"] = f"{paths.DESIGN.format(**run)}/{paths.PLAN_FILE}"
        return inputs

    def control_args(self, wc) -> list[str]:
        """The run's overrides, then the arm's (`memory=ctmc memory.tau=1.0 ...`)."""
        return self.run_args(wc) + control_arms.overrides(wc.arm) + [f"control.arm={wc.arm}"]

    @staticmethod
    def budget_arg(wc, input) -> str:
        """The input artifacts a controller job reads beside its run: the matched budget's arm, the plan."""
        args = [f"control.budget_from={input.budget}"] if "budget" in input.keys() else []
        if "plan" in input.keys():
            args.append(f"control.plan_file={input.plan}")
        return " ".join(args)

    # -- benchmark data ---------------------------------------------------------------------------------------
    @property
    def data_dir(self) -> str:
        return str(self.cfg.data_dir)

    @cached_property
    def data_missing(self) -> list:
        """What a quick check (presence and size) finds missing of the benchmark data (tailmem.data.manifest)."""
        from pathlib import Path

        from tailmem.data.manifest import problems

        return problems(Path(self.data_dir), deep=False)

    @property
    def data_ready(self) -> bool:
        """The benchmark stages can run (the graph-world stages never wait on data a fresh clone lacks)."""
        return not self.data_missing

    # -- filesystem memory (LoCoMo tables and the study) ------------------------------------------------------
    @staticmethod
    def store_args(wc) -> list[str]:
        return [f"fsmem.benchmark={wc.bench}", f"fsmem.conversation={wc.conv}", f"fsmem.variant={wc.variant}"]

    def answer_args(self, wc) -> list[str]:
        return self.store_args(wc) + [f"fsmem.harness={wc.harness}"]

    @staticmethod
    def fsmem_files(runs) -> list[str]:
        return sorted({str(f) for r in runs for f in (r.build_file, r.answers_file)})

    @staticmethod
    def model(role, name) -> list[str]:
        return [] if name == PROGRAMMATIC else [f"llm.roles.{role}.model={fsmem_study_runs.grid_model(name)}"]

    def priced_strength_grid(self, wildcards) -> list:
        """No input: checks, when the DAG first needs a grid store, that every grid model has a price."""
        fsmem_study_runs.check_strength_prices(self.cfg)
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
        return fsmem_study_runs.main_runs(self.cfg)

    @cached_property
    def fsmem_harness(self):
        return fsmem_study_runs.harness_runs(self.cfg)

    @cached_property
    def fsmem_strength(self):
        return fsmem_study_runs.strength_runs(self.cfg)

    @cached_property
    def fsmem_replicates(self):
        return fsmem_study_runs.replicate_runs(self.cfg)

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

    # -- LongMemEval ------------------------------------------------------------------------------------------
    @cached_property
    def longmemeval_tables(self) -> list[str]:
        return self.tables(outputs.LONGMEMEVAL_TABLES)

    @cached_property
    def longmemeval_figures(self) -> list[str]:
        return self.figure(outputs.LONGMEMEVAL_FIGURE)

    @cached_property
    def longmemeval_targets(self) -> list[str]:
        return self.longmemeval_tables + self.longmemeval_figures

    @cached_property
    def longmemeval_summaries(self) -> list[str]:
        """Every LongMemEval run's summary.json (one per dataset and seed)."""
        run = paths.wild(paths.LONGMEMEVAL, results=self.results)
        agent = paths.agent_label(self.cfg, SEARCHER, JUDGE)
        return [
            f"{run}/{paths.SUMMARY_FILE}".format(dataset=d, agent=agent, seed=s)
            for d in self.cfg.longmemeval.datasets
            for s in self.cfg.longmemeval.seeds
        ]

    # -- judge sensitivity ------------------------------------------------------------------------------------
    @cached_property
    def judge_sensitivity(self) -> list[str]:
        return self.table(outputs.JUDGE_SENSITIVITY)

    @property
    def judge_verdicts(self) -> str:
        """Every answer's verdict under each judge, read by the claims stages."""
        return f"{paths.TABLES.format(results=self.results)}/{outputs.JUDGE_VERDICTS}"

    @cached_property
    def judged_inputs(self) -> list[str]:
        """What a claims stage reads to say which verdicts depend on the judge (`judges.claims`)."""
        return [self.judge_verdicts] if self.cfg.judges.claims else []

    @cached_property
    def judged_answers(self) -> list[str]:
        """The answer sets the judges score again: the study's and LongMemEval's."""
        return self.fsmem_files(self.fsmem_main + self.fsmem_harness + self.fsmem_strength) + self.longmemeval_summaries

    # -- ALFWorld ---------------------------------------------------------------------------------------------
    def alf_outputs(self, subset) -> list[str]:
        """Every table and figure the ALFWorld report writes for a subset (a name or the "{subset}" wildcard)."""
        tables = (*outputs.ALFWORLD_TABLES, *outputs.ALFWORLD_SKILL_TABLES)
        figures = (*outputs.ALFWORLD_FIGURES, *outputs.ALFWORLD_SKILL_FIGURES)
        return (
            [f for s in tables for f in self.table(outputs.alfworld_output(subset, s))]
            + [f for s in figures for f in self.figure(outputs.alfworld_output(subset, s))]
            + self.table(outputs.claims_alfworld(subset))
        )

    @cached_property
    def alfworld_targets(self) -> list[str]:
        return [t for s in self.cfg.alfworld.subsets for t in self.alf_outputs(s)]

    # -- external access logs ---------------------------------------------------------------------------------
    AUDIT_LOG_FILES = ("audit.json", "audit_log.csv", "audit_log.md", "ccdf.png", "ccdf.pdf")

    @cached_property
    def audit_log_entries(self) -> dict:
        """`audit_log.logs` by name. A relative file is the repository's (the Snakefile's folder), whatever
        --directory the run has, and is given relative to the run's working directory: an absolute path in the
        rule's input or command would change when the checkout moves and rerun both audits, the site and `all`."""

        def file(name: str) -> str:
            if os.path.isabs(name):
                return name
            return os.path.relpath(os.path.realpath(os.path.join(self.basedir, name)), os.path.realpath(os.getcwd()))

        return {str(e["name"]): {**e, "file": file(str(e["file"]))} for e in (self.cfg.audit_log.logs or [])}

    @property
    def audit_log_dir(self) -> str:
        return f"{self.results}/audit_log/{{access_log}}"

    @cached_property
    def audit_log_targets(self) -> list[str]:
        return [f"{self.results}/audit_log/{name}/{f}" for name in self.audit_log_entries for f in self.AUDIT_LOG_FILES]

    def audit_log_args(self, wc) -> list[str]:
        e = self.audit_log_entries[wc.access_log]
        return [f"audit_log.file='{e['file']}'", f"audit_log.format={e['format']}", f"audit_log.name={wc.access_log}"]

    # -- the site and the model slice -------------------------------------------------------------------------
    @property
    def site_dir(self) -> str:
        return f"{self.results}/site"

    @cached_property
    def site_targets(self) -> list[str]:
        return [f"{self.site_dir}/index.html", f"{self.site_dir}/site.json"]

    @cached_property
    def graph_world_targets(self) -> list[str]:
        """Paper 1's graph-world tables and figures: no benchmark data needed."""
        return (
            self.tables_random_walk
            + self.figures_random_walk
            + self.tables_design
            + self.tables_control
            + self.figures_control
        )

    @cached_property
    def calibration_targets(self) -> list[str]:
        return self.tables_calibration + [self.calibration_protocols]  # not in a model slice: no model plays a part

    @cached_property
    def benchmark_targets(self) -> list[str]:
        """The benchmark tables, once `data` finds every benchmark file (data.smk says what is missing)."""
        if not self.data_ready:
            return []
        return self.fsmem_tables + self.longmemeval_targets + self.fsmem_study_targets + self.judge_sensitivity

    @cached_property
    def alfworld_all(self) -> list[str]:
        return self.alfworld_targets if self.data_ready else []

    @cached_property
    def site_inputs(self) -> list[str]:
        """The products of `all` the site shows: a rerun of any stage rewrites the tables it feeds."""
        benchmarks = (
            (self.fsmem_tables + self.longmemeval_targets + self.fsmem_study_targets + self.alfworld_targets)
            if self.data_ready
            else []
        )
        return (
            self.audit_log_targets
            + self.tables_random_walk
            + self.figures_random_walk
            + self.tables_calibration
            + self.tables_design
            + self.tables_control
            + self.figures_control
            + benchmarks
        )

    @cached_property
    def model_roles(self) -> list[str]:
        """How the model played each role (the slice's model_roles and model_claims tables)."""
        return self.table(outputs.MODEL_ROLES) + self.table(outputs.MODEL_CLAIMS)

    @cached_property
    def slice_claims(self) -> list[str]:
        """A slice's headline tables: paper 1's graph world, LoCoMo, claims_fsmem, LongMemEval, ALFWorld."""
        benchmarks = (
            (
                self.fsmem_tables
                + self.fsmem_study["fsmem_claims"][0]
                + self.longmemeval_targets
                + self.judge_sensitivity
                + self.alfworld_targets
            )
            if self.data_ready
            else []
        )
        return self.graph_world_targets + benchmarks

    @cached_property
    def slice_targets(self) -> list[str]:
        return self.slice_claims + (self.model_roles if self.data_ready else [])

    @cached_property
    def role_probe_inputs(self) -> list[str]:
        """What model_roles reads: the controller runs, the study's stores and answers, the slice's claims."""
        fsmem = [
            str(f)
            for r in self.fsmem_main + self.fsmem_harness
            for f in (r.build_dir / paths.BUILD_FILE, r.answers_dir / paths.ANSWERS_FILE)
        ]
        claims = [str(t) for t in self.slice_claims if os.path.basename(str(t)).startswith("claims_")]
        return [str(r.summary_file(self.results)) for r in self.control_runs] + fsmem + claims
