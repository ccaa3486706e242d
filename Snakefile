# tailmem: the whole workflow. Stages, in order: graph-world generation -> rollouts -> tail audits ->
# benchmark evaluation -> tables and figures. Choose a scale and add Hydra overrides with --config:
#   snakemake --cores 2                                   # default scale
#   snakemake --cores 2 --config scale=smoke              # tiny graphs (CI)
#   snakemake --cores 2 --config 'overrides=["scale.sizes=[100,200]","retrieval.k=3"]'

# Each study keeps its rules beside its code (src/tailmem/studies/<study>/rules.smk). A rule file starts with
# `<STUDY> = plan_of(config, workflow.basedir, "<study>")` and names every target, run list, file pattern and job
# parameter through that plan (the study's plan.py), never through a name another .smk file defines
# (tests/test_layers.py parses each file and checks this), so the include order below carries no meaning. The rules
# that span studies (`all`, the site, the model slice's role probe) read `TAILMEM`, every plan together
# (tailmem/dag.py). (Not `DAG`: Snakefiles run in the namespace of snakemake.workflow, whose `DAG` is Snakemake's.)
from tailmem import roles
from tailmem.dag import dag_of
from tailmem.workflow import wildcard_patterns

TAILMEM = dag_of(config, workflow.basedir)


# A local run starts jobs as cores free up, with no cap on starts per second. Snakemake's default cap (100 a
# second) wakes its scheduler every second to re-select among all ready jobs, statting each one's inputs: with 99
# jobs waiting behind two model jobs that took 34% of a core (benchmarks/bench_scheduler.py). A cluster profile
# keeps the cap it sets.
onstart:
    if workflow.local_exec:
        workflow.scheduler.job_rate_limiter = None


wildcard_constraints:  # every rule's, whichever file defines it (Snakemake applies them to rules defined before too)
    **wildcard_patterns(),


include: "workflows/data.smk"
include: "src/tailmem/studies/random_walk/rules.smk"
include: "src/tailmem/studies/controller/rules.smk"
include: "src/tailmem/studies/fsmem/rules.smk"
include: "src/tailmem/studies/longmemeval/rules.smk"
include: "src/tailmem/studies/judge_sensitivity/rules.smk"
include: "src/tailmem/studies/alfworld/rules.smk"
include: "src/tailmem/studies/calibration/rules.smk"
include: "src/tailmem/studies/audit_log/rules.smk"
include: "workflows/design.smk"
include: "workflows/site.smk"


# The model slice: the same workflow again at the scale's `model_slice` scale (llm=embedded: the embedded instruct
# model plays every role), under its own results folder, so its tables sit beside the programmatic ones and name
# the model in every path and row. Inside the slice, `all` is the slice's targets and no further slice is nested.
# `--config 'model_overrides=[...]'` adds overrides for the slice alone (e.g. llm.n_gpu_layers=99 on GPU nodes).
if TAILMEM.model_slice:

    module model:
        snakefile:
            "Snakefile"
        config:
            {
                "scale": TAILMEM.model_slice,
                "overrides": list(TAILMEM.overrides) + list(config.get("model_overrides", [])),
                "slice_of": TAILMEM.scale,
            }

    use rule * from model exclude all_but_alfworld, graph_world as model_*


# the policy's probe plays its own world, so it reads no product and runs beside the slice's other model jobs
rule policy_probe:
    output:
        TAILMEM.policy_probe,
    params:
        **TAILMEM.stage_params("policy_probe"),
    log:
        TAILMEM.log_of("policy_probe"),
    conda:
        TAILMEM.conda_env
    resources:
        llm_slots=TAILMEM.llm_slots(roles.POLICY),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} > {log} 2>&1"


rule role_probe:
    input:
        TAILMEM.role_probe_inputs,  # the controller runs, the study's stores and answers, the policy probe, the
                                    # slice's claims tables
    output:
        TAILMEM.model_roles,
    params:
        **TAILMEM.stage_params("model_roles"),
        out=TAILMEM.out_folder,
    log:
        TAILMEM.log_of("role_probe"),
    conda:
        TAILMEM.conda_env
    resources:
        llm_slots=TAILMEM.llm_slots(roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out={params.out} > {log} 2>&1"


rule all:
    default_target: True
    input:
        TAILMEM.all_targets,  # every study's targets and the site; inside the model slice, the slice's
        rules.model_all.input if TAILMEM.model_slice else [],


# Everything but ALFWorld (for an install without the `alfworld` extra) and the site.
rule all_but_alfworld:
    input:
        TAILMEM.all_but_alfworld,


# The graph world alone (paper 1 Tables 2-8, Figures 3-7, the calibration study): no benchmark data needed.
rule graph_world:
    input:
        TAILMEM.graph_world_targets,
