# Judge sensitivity (issue 31): the answers the fsmem study and LongMemEval wrote, judged again by every judge of
# `judges.names` (table judge_sensitivity); its per-answer verdicts feed claims_fsmem and claims_longmemeval.
# Needs workflows/fsmem_study.smk and workflows/longmemeval.smk (their runs).
#   snakemake --cores 2 judge_sensitivity
JUDGE_SENSITIVITY = table(outputs.JUDGE_SENSITIVITY)


rule judge_sensitivity:
    input:
        _fsmem_files(FSMEM_MAIN + FSMEM_HARNESS + FSMEM_STRENGTH),
        expand(f"{LME_RUN}/{paths.SUMMARY_FILE}", dataset=LME_DATASETS, agent=LME_AGENT, seed=LME_SEEDS),
    output:
        JUDGE_SENSITIVITY,
        JUDGE_VERDICTS,
    params:
        **stage_params("judge_sensitivity"),
        out=out_folder,
    log:
        log_of("judge_sensitivity"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
