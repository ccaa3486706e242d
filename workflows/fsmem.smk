# Filesystem memory on LoCoMo and REALTALK: build each variant's store, answer the questions through a search
# harness, one table per LoCoMo conversation. Paths: tailmem/paths.py.
#   snakemake --cores 2 fsmem_locomo
FSMEM_CONVS = list(CFG.fsmem.conversations)
FSMEM_VARIANTS = list(CFG.fsmem.variants)
FSMEM_BUILDER = paths.role_label(CFG, "builder")
FSMEM_SEARCHER = paths.role_label(CFG, "searcher")
FSMEM_TABLE13 = table(outputs.TABLE13_LOCOMO_FILTERED)  # paper 2 Table 13: conv-50 without D.2's golds (issue 31)
FSMEM_TABLES = [f for conv in FSMEM_CONVS for f in table(outputs.conversation_table("locomo", conv))] + FSMEM_TABLE13


rule fsmem_locomo:
    input:
        FSMEM_TABLES,


rule fsmem_store:
    output:
        f"{paths.wild(paths.FSMEM_VARIANT, results=RESULTS)}/{paths.BUILD_FILE}",
    params:
        **stage_params("fsmem_build", _store_args),
    log:
        log_of("fsmem_store", "bench", "conv", "builder", "variant"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_answers:
    input:
        f"{paths.wild(paths.FSMEM_VARIANT, results=RESULTS)}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=paths.wild(paths.FSMEM_VARIANT, results=RESULTS))}/{paths.ANSWERS_FILE}",
    params:
        **stage_params("fsmem_answer", _answer_args),
    log:
        log_of("fsmem_answers", "bench", "conv", "builder", "variant", "harness", "searcher"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


rule fsmem_table:
    input:
        lambda wc: [f"{paths.answers_dir(paths.variant_dir(RESULTS, 'locomo', wc.conv, v, FSMEM_BUILDER), 'center', FSMEM_SEARCHER)}/{paths.ANSWERS_FILE}"
                    for v in FSMEM_VARIANTS],
    output:
        csv=paths.TABLE.format(results=RESULTS, stem=outputs.conversation_table("locomo", "{conv}"), ext="csv"),
        md=paths.TABLE.format(results=RESULTS, stem=outputs.conversation_table("locomo", "{conv}"), ext="md"),
    params:
        **stage_params("fsmem_table", lambda wc: ["fsmem.benchmark=locomo", "fsmem.harness=center",
                                                  f"fsmem.conversation={wc.conv}"]),
        folder=lambda wc: f"{paths.FSMEM_CONV.format(results=RESULTS, bench='locomo', conv=wc.conv)}/{FSMEM_BUILDER}",
    log:
        log_of("fsmem_table", "conv"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input={params.folder} out=$(dirname {output.csv}) > {log} 2>&1"


rule fsmem_table13:
    input:
        [f"{paths.answers_dir(paths.variant_dir(RESULTS, 'locomo', 'conv-50', v, FSMEM_BUILDER), 'center', FSMEM_SEARCHER)}/{paths.ANSWERS_FILE}"
         for v in FSMEM_VARIANTS],
    output:
        FSMEM_TABLE13,
    params:
        **stage_params("fsmem_table13", lambda wc: ["fsmem.benchmark=locomo", "fsmem.harness=center"]),
        out=out_folder,
    log:
        log_of("fsmem_table13"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
