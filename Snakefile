# tailmem: the whole DAG. Stages, in order: graph-world generation -> rollouts -> tail audits ->
# benchmark evaluation -> tables and figures. Choose a scale and add Hydra overrides with --config:
#   snakemake --cores 2                                   # default scale
#   snakemake --cores 2 --config scale=smoke              # tiny graphs (CI)
#   snakemake --cores 2 --config 'overrides=["scale.sizes=[100,200]","retrieval.k=3"]'

include: "workflows/common.smk"
include: "workflows/data.smk"
include: "workflows/graphworld.smk"
include: "workflows/rollout.smk"
include: "workflows/audit.smk"
include: "workflows/control.smk"
include: "workflows/fsmem.smk"
include: "workflows/fsmem_study.smk"
include: "workflows/longmemeval.smk"
include: "workflows/alfworld.smk"
include: "workflows/tables.smk"
include: "workflows/calibration.smk"
include: "workflows/audit_log.smk"
include: "workflows/site.smk"


# The graph-world targets need no benchmark data; the rest wait until `data` finds every benchmark file
# (data.smk prints what is missing and the command that fetches it, so a fresh clone still runs the graph world).
GRAPH_WORLD_TARGETS = TABLES_RANDOM_WALK + FIGURES_RANDOM_WALK + TABLES_CONTROL + FIGURES_CONTROL
CALIBRATION_TARGETS = TABLES_CALIBRATION + [CALIBRATION_PROTOCOLS]  # not in a model slice: no model plays a part
BENCHMARK_TARGETS = FSMEM_TABLES + LONGMEMEVAL_TARGETS + FSMEM_STUDY_TARGETS if DATA_READY else []
ALFWORLD_ALL = ALFWORLD_TARGETS if DATA_READY else []


# The model slice: the same workflow again at the scale's `model_slice` scale (llm=embedded: the embedded instruct
# model plays every role), under its own results folder, so its tables sit beside the programmatic ones and name
# the model in every path and row. Inside the slice, `all` is the slice's targets and no further slice is nested.
IN_SLICE = bool(config.get("slice_of"))
MODEL_SLICE = None if IN_SLICE else CFG.scale.get("model_slice")
if MODEL_SLICE:

    module model:
        snakefile:
            "Snakefile"
        config:
            {"scale": MODEL_SLICE, "overrides": USER_OVERRIDES, "slice_of": SCALE}

    use rule * from model exclude all_but_alfworld, graph_world as model_*


# A slice reports the headline tables only: paper 1's graph-world tables, LoCoMo, claims_fsmem, LongMemEval, ALFWorld,
# and how the model played each role (model_roles).
MODEL_ROLES = table(outputs.MODEL_ROLES) + table(outputs.MODEL_CLAIMS)
SLICE_CLAIMS = GRAPH_WORLD_TARGETS + ((FSMEM_TABLES + FSMEM_STUDY["fsmem_claims"][0] + LONGMEMEVAL_TARGETS
                                       + ALFWORLD_TARGETS) if DATA_READY else [])
SLICE_TARGETS = SLICE_CLAIMS + (MODEL_ROLES if DATA_READY else [])


rule role_probe:
    input:
        [str(r.summary_file(RESULTS)) for r in _CONTROL_RUNS],
        [str(f) for r in FSMEM_MAIN + FSMEM_HARNESS for f in (r.build_dir / paths.BUILD_FILE, r.answers_dir / paths.ANSWERS_FILE)],
        [str(t) for t in SLICE_CLAIMS if os.path.basename(str(t)).startswith("claims_")],  # model_claims reads them
    output:
        MODEL_ROLES,
    params:
        **stage_params("model_roles"),
        out=out_folder,
    log:
        log_of("role_probe"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule all:
    default_target: True
    input:
        SLICE_TARGETS if IN_SLICE else [GRAPH_WORLD_TARGETS, CALIBRATION_TARGETS, BENCHMARK_TARGETS, ALFWORLD_ALL,
                                        AUDIT_LOG_TARGETS, SITE_TARGETS],
        rules.model_all.input if MODEL_SLICE else [],


# Everything but ALFWorld (for an install without the `alfworld` extra).
rule all_but_alfworld:
    input:
        GRAPH_WORLD_TARGETS,
        CALIBRATION_TARGETS,
        BENCHMARK_TARGETS,


# The graph world alone (paper 1 Tables 2-8, Figures 3-7, the calibration study): no benchmark data needed.
rule graph_world:
    input:
        GRAPH_WORLD_TARGETS,
        CALIBRATION_TARGETS,
