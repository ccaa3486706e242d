# Judge sensitivity: the answers the fsmem study and LongMemEval wrote, judged again by every judge of
# `judges.names` (table judge_sensitivity); its per-answer verdicts feed claims_fsmem and claims_longmemeval.
#   snakemake --cores 2 judge_sensitivity
from tailmem import roles
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule judge_sensitivity:
    input:
        TAILMEM.judged_answers,
    output:
        TAILMEM.judge_sensitivity,
        TAILMEM.judge_verdicts,
    params:
        **TAILMEM.stage_params("judge_sensitivity"),
        out=TAILMEM.out_folder,
    log:
        TAILMEM.log_of("judge_sensitivity"),
    conda:
        TAILMEM.conda_env
    resources:
        llm_slots=TAILMEM.llm_slots(roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out={params.out} > {log} 2>&1"
