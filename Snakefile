# tailmem: the whole DAG. Stages, in order: graph-world generation -> rollouts -> tail audits ->
# benchmark evaluation -> tables and figures. Choose a scale and add Hydra overrides with --config:
#   snakemake --cores 2                                   # default scale
#   snakemake --cores 2 --config scale=smoke              # tiny graphs (CI)
#   snakemake --cores 2 --config 'overrides=["scale.sizes=[100,200]","retrieval.k=3"]'

include: "workflows/common.smk"
include: "workflows/graphworld.smk"
include: "workflows/rollout.smk"
include: "workflows/audit.smk"
include: "workflows/control.smk"
include: "workflows/fsmem.smk"
include: "workflows/fsmem_study.smk"
include: "workflows/longmemeval.smk"
include: "workflows/alfworld.smk"
include: "workflows/tables.smk"


rule all:
    default_target: True
    input:
        TABLES_RANDOM_WALK,
        FIGURES_RANDOM_WALK,
        TABLES_CONTROL,
        FIGURES_CONTROL,
        FSMEM_TABLES,
        LONGMEMEVAL_TARGETS,
        FSMEM_STUDY_TARGETS,
        ALFWORLD_TARGETS,
