# Shared by every rule file: the composed Hydra config of the chosen scale, the wildcard names generated from
# the Python registries, and `stage_params`, which gives each rule its command and its two rerun digests.
#
# Every rule's params hold `cmd` (python -m tailmem <stage> with the scale, the user's overrides of the groups
# the stage reads, and the job's own overrides), `config` (digest of the job's resolved config groups) and
# `code` (digest of the source the stage runs): Snakemake reruns a job when any of them changes, so editing a
# default in configs/ or a module reruns exactly the jobs that depend on it (tailmem/registry.py).
from tailmem import paths, targets
from tailmem.workflow import Dag, wildcard_patterns

SCALE = str(config.get("scale", "default"))
USER_OVERRIDES = config.get("overrides", [])
if isinstance(USER_OVERRIDES, str):
    USER_OVERRIDES = [USER_OVERRIDES]
JOBS = Dag(SCALE, USER_OVERRIDES)
CFG = JOBS.cfg
RESULTS = CFG.results_dir
FIGURES = CFG.figures_dir


wildcard_constraints:
    **wildcard_patterns(),


def stage_params(stage, args=None, family=None):
    """`params:` of a rule running `stage`; `args(wildcards)` gives the job's overrides (`seed=1`,
    `graph=modular`), `family(wildcards)` the graph family whose keys the user's graph overrides may set."""

    def job(wc):
        return JOBS.job(stage, tuple(args(wc)) if args else (), family(wc) if family else None)

    return dict(cmd=lambda wc: job(wc).cmd, config=lambda wc: job(wc).config, code=lambda wc: job(wc).code)


def log_of(rule, *keys):
    """The log file of a rule: `<results>/logs/<rule>/<key>_<key>.log` (keys are wildcard names)."""
    return paths.log_file(RESULTS, rule, *["{" + k + "}" for k in keys])


def table(stem):
    return paths.table_files(RESULTS, stem)


def figure(stem):
    return paths.figure_files(FIGURES, stem)
