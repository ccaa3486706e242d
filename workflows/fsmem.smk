# Filesystem memory on LoCoMo and REALTALK: build each variant's store, answer the questions through a search
# harness, one table per LoCoMo conversation. Paths: tailmem/fsmem/layout.py.
#   snakemake --cores 2 fsmem_locomo
FSMEM_CONVS = list(CFG.fsmem.conversations)
FSMEM_VARIANTS = list(CFG.fsmem.variants)
FSMEM_ROOT = f"{RESULTS}/fsmem"
FSMEM = f"{FSMEM_ROOT}/locomo"
FSMEM_TABLES = expand(f"{RESULTS}/tables/locomo_{{conv}}.{{ext}}", conv=FSMEM_CONVS, ext=["csv", "md"])


rule fsmem_locomo:
    input:
        FSMEM_TABLES,


rule fsmem_store:
    output:
        f"{FSMEM_ROOT}/{{bench}}/{{conv}}/{{variant}}/build.json",
    wildcard_constraints:
        bench="locomo|realtalk",
        conv="[^/]+",
        variant="[^/]+",
    params:
        cmd=lambda wc: tm("fsmem_build", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} fsmem.benchmark={wildcards.bench} fsmem.conversation={wildcards.conv}"
        " fsmem.variant={wildcards.variant} out=$(dirname {output})"


rule fsmem_answers:
    input:
        f"{FSMEM_ROOT}/{{bench}}/{{conv}}/{{variant}}/build.json",
    output:
        f"{FSMEM_ROOT}/{{bench}}/{{conv}}/{{variant}}/answers/{{harness}}/answers.json",
    wildcard_constraints:
        bench="locomo|realtalk",
        conv="[^/]+",
        variant="[^/]+",
        harness="center|center_bm25|shell",
    params:
        cmd=lambda wc: tm("fsmem_answer", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} fsmem.benchmark={wildcards.bench} fsmem.conversation={wildcards.conv}"
        " fsmem.variant={wildcards.variant} fsmem.harness={wildcards.harness}"
        " input=$(dirname {input}) out=$(dirname {output})"


rule fsmem_table:
    input:
        lambda wc: expand(f"{FSMEM}/{wc.conv}/{{variant}}/answers/center/answers.json", variant=FSMEM_VARIANTS),
    output:
        csv=f"{RESULTS}/tables/locomo_{{conv}}.csv",
        md=f"{RESULTS}/tables/locomo_{{conv}}.md",
    params:
        cmd=lambda wc: tm("fsmem_table", "fsmem"),
    shell:
        "{params.cmd} fsmem.benchmark=locomo fsmem.harness=center fsmem.conversation={wildcards.conv}"
        " input={FSMEM}/{wildcards.conv} out=$(dirname {output.csv})"
