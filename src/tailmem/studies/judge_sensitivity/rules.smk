# Judge sensitivity: the answers the fsmem study and LongMemEval wrote, judged again by every judge of
# `judges.names` (table judge_sensitivity); its per-answer verdicts feed claims_fsmem and claims_longmemeval.
#   snakemake --cores 2 judge_sensitivity
from tailmem import roles
from tailmem.dag import plan_of

JUDGES = plan_of(config, workflow.basedir, "judge_sensitivity")  # judge_sensitivity/plan.py


rule judge_sensitivity:
    input:
        JUDGES.judged_answers,
    output:
        JUDGES.judge_sensitivity,
        JUDGES.judge_verdicts,
    params:
        **JUDGES.stage_params("judge_sensitivity"),
        out=JUDGES.out_folder,
    log:
        JUDGES.log_of("judge_sensitivity"),
    conda:
        JUDGES.conda_env
    resources:
        llm_slots=JUDGES.llm_slots(roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out={params.out} > {log} 2>&1"
