# LongMemEval with the memory controllers (paper 1 Figure 8): one job per dataset (oracle, S sample) and seed,
# every arm inside it (CTMC's budgets are read from Graph Memory's tokens on the same question), then the report.
#   snakemake --cores 2 longmemeval
LME = f"{RESULTS}/longmemeval"
LME_DATASETS = list(CFG.longmemeval.datasets)
LME_SEEDS = list(CFG.longmemeval.seeds)
LONGMEMEVAL_TABLES = expand(f"{RESULTS}/tables/longmemeval_{{stem}}.{{ext}}",
                            stem=["by_type", "summary", "ctmc_vs_graph"], ext=["csv", "md"])
LONGMEMEVAL_FIGURES = expand(f"{FIGURES}/fig8_longmemeval.{{ext}}", ext=["png", "pdf"])
LONGMEMEVAL_TARGETS = LONGMEMEVAL_TABLES + LONGMEMEVAL_FIGURES


rule longmemeval:
    input:
        LONGMEMEVAL_TARGETS,


rule longmemeval_run:
    output:
        f"{LME}/{{dataset}}/seed{{seed}}/summary.json",
    params:
        cmd=lambda wc: tm("longmemeval", "longmemeval", "llm"),
    log:
        f"{RESULTS}/logs/longmemeval/{{dataset}}_seed{{seed}}.log",
    shell:
        "{params.cmd} longmemeval.dataset={wildcards.dataset} seed={wildcards.seed} out=$(dirname {output}) > {log} 2>&1"


rule longmemeval_report:
    input:
        expand(f"{LME}/{{dataset}}/seed{{seed}}/summary.json", dataset=LME_DATASETS, seed=LME_SEEDS),
    output:
        [report(t, category="LongMemEval", subcategory="tables") for t in LONGMEMEVAL_TABLES],
        [report(f, category="LongMemEval", subcategory="figures") for f in LONGMEMEVAL_FIGURES],
    params:
        cmd=tm("longmemeval_report", "longmemeval"),
    log:
        f"{RESULTS}/logs/longmemeval_report.log",
    shell:
        "{params.cmd} out={RESULTS}/tables > {log} 2>&1"
