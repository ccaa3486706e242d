# LongMemEval with the memory controllers (paper 1 Figure 8): one job per dataset (oracle, S sample) and seed,
# every arm inside it (CTMC's budgets are read from Graph Memory's tokens on the same question), then the report.
#   snakemake --cores 2 longmemeval
LME_RUN = paths.wild(paths.LONGMEMEVAL, results=RESULTS)
LME_DATASETS = list(CFG.longmemeval.datasets)
LME_SEEDS = list(CFG.longmemeval.seeds)
LME_AGENT = paths.agent_label(CFG, "searcher", "judge")
LONGMEMEVAL_TABLES = [f for stem in outputs.LONGMEMEVAL_TABLES for f in table(stem)]
LONGMEMEVAL_FIGURES = figure(outputs.LONGMEMEVAL_FIGURE)
LONGMEMEVAL_TARGETS = LONGMEMEVAL_TABLES + LONGMEMEVAL_FIGURES


rule longmemeval:
    input:
        LONGMEMEVAL_TARGETS,


rule longmemeval_run:
    output:
        f"{LME_RUN}/{paths.SUMMARY_FILE}",
    params:
        **stage_params("longmemeval", lambda wc: [f"longmemeval.dataset={wc.dataset}", f"seed={wc.seed}"]),
    log:
        log_of("longmemeval", "dataset", "agent", "seed"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule longmemeval_report:
    input:
        expand(f"{LME_RUN}/{paths.SUMMARY_FILE}", dataset=LME_DATASETS, agent=LME_AGENT, seed=LME_SEEDS),
        [JUDGE_VERDICTS] if CFG.judges.claims else [],  # workflows/judges.smk (claims_longmemeval per judge)
    output:
        [report(t, category="LongMemEval", subcategory="tables") for t in LONGMEMEVAL_TABLES],
        [report(f, category="LongMemEval", subcategory="figures") for f in LONGMEMEVAL_FIGURES],
    params:
        **stage_params("longmemeval_report"),
        out=out_folder,
    log:
        log_of("longmemeval_report"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
