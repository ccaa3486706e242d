# Shared by every .smk file: the composed Hydra config of the chosen scale, the wildcard names generated from
# the Python registries, and `stage_params`, which gives each rule its command and its two rerun digests.
#
# Every rule's params hold `cmd` (python -m tailmem.warmstart <stage>: `python -m tailmem <stage>` forked from the
# warm server, tailmem/warmstart.py; with the scale, the user's overrides of the groups
# the stage reads, and the job's own overrides), `config` (digest of the job's resolved config groups) and
# `code` (digest of the source the stage runs): Snakemake reruns a job when any of them changes, so editing a
# default in configs/ or a module reruns exactly the jobs that depend on it (tailmem/registry.py).
import os

from tailmem import outputs, paths, targets
from tailmem.workflow import Dag, wildcard_patterns

SCALE = str(config.get("scale", "default"))
USER_OVERRIDES = config.get("overrides", [])
if isinstance(USER_OVERRIDES, str):
    USER_OVERRIDES = [USER_OVERRIDES]
JOBS = Dag(SCALE, USER_OVERRIDES)
CFG = JOBS.cfg
RESULTS = CFG.results_dir
# the software of every job (used with --use-conda; pins = pyproject.toml); absolute, because the model slice
# (a module of this workflow) resolves relative conda paths from the Snakefile, not from the file naming them
CONDA_ENV = os.path.join(workflow.basedir, "environment.yml")
FIGURES = CFG.figures_dir


wildcard_constraints:
    **wildcard_patterns(),


def stage_params(stage, args=None, family=None):
    """`params:` of a rule running `stage`; `args(wildcards)` gives the job's overrides (`seed=1`,
    `graph=modular`), `family(wildcards)` the graph family whose keys the user's graph overrides may set."""

    def job(wc):
        return JOBS.job(stage, tuple(args(wc)) if args else (), family(wc) if family else None)

    return dict(cmd=lambda wc: job(wc).cmd, config=lambda wc: job(wc).config, code=lambda wc: job(wc).code)


def log_of(name, *keys):
    """The log file of the jobs of `name`: `<results>/logs/<name>/<key>_<key>.log` (keys are wildcard names)."""
    return paths.log_file(RESULTS, name, *[f"{{{k}}}" for k in keys])


def out_folder(wildcards, output):
    """The folder of a job's first output (its `out=`)."""
    return os.path.dirname(output[0])


def table(stem):
    return paths.table_files(RESULTS, stem)


def figure(stem):
    return paths.figure_files(FIGURES, stem)


# -- the overrides and inputs of each kind of job, from its wildcards (used by the rule files) -------------
def _run_args(wc):
    """The overrides naming one run: world, policy, retrieval design, seed."""
    return [f"graph={wc.family}", f"graph.n={wc.n}", f"seed={wc.seed}", f"policy={wc.policy}",
            f"retrieval={wc.retrieval}"]


def _control_inputs(wc):
    keys = dict(results=RESULTS, family=wc.family, n=wc.n, seed=wc.seed)
    run = dict(policy=wc.policy, agent=wc.agent, retrieval=wc.retrieval, **keys)
    inputs = {
        "world": f"{paths.GRAPHWORLD.format(**keys)}/{paths.WORLD_FILE}",
        "trace": f"{paths.ROLLOUT.format(**run)}/{paths.TRACE_FILE}",
    }
    reference = control_arms.matched_reference(wc.arm)
    if reference:
        inputs["budget"] = f"{paths.CONTROL.format(**run, predictor=wc.predictor, arm=reference)}/{paths.SUMMARY_FILE}"
    return inputs


def _control_args(wc):
    """The run's overrides, then the arm's (`memory=ctmc memory.tau=1.0 ...`)."""
    return _run_args(wc) + control_arms.overrides(wc.arm) + [f"control.arm={wc.arm}"]


def _budget_arg(wc, input):
    return f"control.budget_from={input.budget}" if "budget" in input.keys() else ""


def _store_args(wc):
    return [f"fsmem.benchmark={wc.bench}", f"fsmem.conversation={wc.conv}", f"fsmem.variant={wc.variant}"]


def _answer_args(wc):
    return _store_args(wc) + [f"fsmem.harness={wc.harness}"]


def _fsmem_files(runs):
    return sorted({str(f) for r in runs for f in (r.build_file, r.answers_file)})


def _model(role, name):
    return [] if name == fsmem_study_runs.PROGRAMMATIC else [f"llm.roles.{role}.model={name}"]


def _priced_strength_grid(wildcards):
    """No input: checks, when the DAG first needs a grid store, that every grid model has a price."""
    fsmem_study_runs.check_strength_prices(CFG)
    return []


def _personamem_data(wildcards):
    """The tiers' files that exist, so the table is redone when, e.g., the shared contexts are added."""
    from tailmem.data.personamem import contexts_path, questions_path

    pm = CFG.fsmem.personamem
    files = [f(pm.data_dir, t) for t in pm.tiers for f in (questions_path, contexts_path)]
    return [str(f) for f in files if f.exists()]


def _alf_outputs(subset):
    """Every table and figure the ALFWorld report writes for a subset (a name or the "{subset}" wildcard)."""
    tables = (*outputs.ALFWORLD_TABLES, *outputs.ALFWORLD_SKILL_TABLES)
    figures = (*outputs.ALFWORLD_FIGURES, *outputs.ALFWORLD_SKILL_FIGURES)
    return ([f for s in tables for f in table(outputs.alfworld_output(subset, s))]
            + [f for s in figures for f in figure(outputs.alfworld_output(subset, s))]
            + table(outputs.claims_alfworld(subset)))
