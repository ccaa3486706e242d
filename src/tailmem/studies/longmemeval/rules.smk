# LongMemEval with the memory controllers (paper 1 Figure 8): one job per dataset (oracle, S sample) and seed,
# every arm inside it (CTMC's budgets are read from Graph Memory's tokens on the same question), then the report.
#   snakemake --cores 2 longmemeval
from tailmem import roles
from tailmem import paths
from tailmem.dag import plan_of

LONGMEMEVAL = plan_of(config, workflow.basedir, "longmemeval")  # longmemeval/plan.py
LME_RUN = paths.wild(paths.LONGMEMEVAL, results=LONGMEMEVAL.results)


rule longmemeval:
    input:
        LONGMEMEVAL.targets,


rule longmemeval_run:
    output:
        f"{LME_RUN}/{paths.SUMMARY_FILE}",
    params:
        **LONGMEMEVAL.stage_params("longmemeval", lambda wc: [f"longmemeval.dataset={wc.dataset}", f"seed={wc.seed}"]),
    log:
        LONGMEMEVAL.log_of("longmemeval", "dataset", "agent", "seed"),
    conda:
        LONGMEMEVAL.conda_env
    resources:
        llm_slots=LONGMEMEVAL.llm_slots(roles.SEARCHER, roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule longmemeval_report:
    input:
        LONGMEMEVAL.longmemeval_summaries,
        LONGMEMEVAL.judged_inputs,  # studies/judge_sensitivity/rules.smk (claims_longmemeval per judge)
    output:
        [report(t, category="LongMemEval", subcategory="tables") for t in LONGMEMEVAL.longmemeval_tables],
        [report(f, category="LongMemEval", subcategory="figures") for f in LONGMEMEVAL.longmemeval_figures],
    params:
        **LONGMEMEVAL.stage_params("longmemeval_report"),
        out=LONGMEMEVAL.out_folder,
    log:
        LONGMEMEVAL.log_of("longmemeval_report"),
    conda:
        LONGMEMEVAL.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


# the study's row of the design check (tables/design_check), from its own config groups
rule longmemeval_design_rows:
    output:
        LONGMEMEVAL.design_rows("longmemeval"),
    params:
        **LONGMEMEVAL.stage_params("longmemeval_design_rows"),
    log:
        LONGMEMEVAL.log_of("longmemeval_design_rows"),
    conda:
        LONGMEMEVAL.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
