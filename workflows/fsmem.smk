# Filesystem memory on LoCoMo: build each variant's store, answer the questions, one table per conversation.
#   snakemake --cores 2 fsmem_locomo
FSMEM_CONVS = list(CFG.fsmem.conversations)
FSMEM_VARIANTS = list(CFG.fsmem.variants)
FSMEM = f"{RESULTS}/fsmem/locomo"
FSMEM_TABLES = expand(f"{RESULTS}/tables/locomo_{{conv}}.{{ext}}", conv=FSMEM_CONVS, ext=["csv", "md"])


rule fsmem_locomo:
    input:
        FSMEM_TABLES,


rule fsmem_store:
    output:
        f"{FSMEM}/{{conv}}/{{variant}}/build.json",
    params:
        cmd=lambda wc: tm("fsmem_build", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} fsmem.conversation={wildcards.conv} fsmem.variant={wildcards.variant} out=$(dirname {output})"


rule fsmem_answers:
    input:
        f"{FSMEM}/{{conv}}/{{variant}}/build.json",
    output:
        f"{FSMEM}/{{conv}}/{{variant}}/answers/answers.json",
    params:
        cmd=lambda wc: tm("fsmem_answer", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} fsmem.conversation={wildcards.conv} fsmem.variant={wildcards.variant}"
        " input=$(dirname {input}) out=$(dirname {output})"


rule fsmem_table:
    input:
        lambda wc: expand(f"{FSMEM}/{wc.conv}/{{variant}}/answers/answers.json", variant=FSMEM_VARIANTS),
    output:
        csv=f"{RESULTS}/tables/locomo_{{conv}}.csv",
        md=f"{RESULTS}/tables/locomo_{{conv}}.md",
    params:
        cmd=lambda wc: tm("fsmem_table", "fsmem"),
    shell:
        "{params.cmd} fsmem.conversation={wildcards.conv} input={FSMEM}/{wildcards.conv} out=$(dirname {output.csv})"
