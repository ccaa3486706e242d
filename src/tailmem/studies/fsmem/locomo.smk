# Filesystem memory on the benchmarks of tailmem.fsmem.benchmarks (LoCoMo, REALTALK): build each variant's store,
# answer the questions through a search harness, one table per conversation of the main benchmark (LoCoMo).
# Paths: tailmem/paths.py.
#   snakemake --cores 2 fsmem_locomo
from tailmem import roles
from tailmem import outputs, paths
from tailmem.dag import plan_of
from tailmem.fsmem.benchmarks import MAIN_BENCHMARK

FSMEM = plan_of(config, workflow.basedir, "fsmem")  # fsmem/plan.py
FSMEM_VARIANTS = list(FSMEM.cfg.fsmem.variants)
FSMEM_BUILDER = paths.role_label(FSMEM.cfg, roles.BUILDER)
FSMEM_SEARCHER = paths.role_label(FSMEM.cfg, roles.SEARCHER)


rule fsmem_locomo:
    input:
        FSMEM.fsmem_tables,


rule fsmem_store:
    output:
        f"{paths.wild(paths.FSMEM_VARIANT, results=FSMEM.results)}/{paths.BUILD_FILE}",
    params:
        **FSMEM.stage_params("fsmem_build", FSMEM.store_args),
    log:
        FSMEM.log_of("fsmem_store", "bench", "conv", "builder", "variant"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.BUILDER),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_answers:
    input:
        f"{paths.wild(paths.FSMEM_VARIANT, results=FSMEM.results)}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=paths.wild(paths.FSMEM_VARIANT, results=FSMEM.results))}/{paths.ANSWERS_FILE}",
    params:
        **FSMEM.stage_params("fsmem_answer", FSMEM.answer_args),
    log:
        FSMEM.log_of("fsmem_answers", "bench", "conv", "builder", "variant", "harness", "searcher"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.SEARCHER, roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


rule fsmem_table:
    input:
        lambda wc: [f"{paths.answers_dir(paths.variant_dir(FSMEM.results, MAIN_BENCHMARK, wc.conv, v, FSMEM_BUILDER), 'center', FSMEM_SEARCHER)}/{paths.ANSWERS_FILE}"
                    for v in FSMEM_VARIANTS],
    output:
        csv=paths.TABLE.format(results=FSMEM.results, stem=outputs.conversation_table(MAIN_BENCHMARK, "{conv}"), ext="csv"),
        md=paths.TABLE.format(results=FSMEM.results, stem=outputs.conversation_table(MAIN_BENCHMARK, "{conv}"), ext="md"),
    params:
        **FSMEM.stage_params("fsmem_table", lambda wc: [f"fsmem.benchmark={MAIN_BENCHMARK}", "fsmem.harness=center",
                                                  f"fsmem.conversation={wc.conv}"]),
        folder=lambda wc: f"{paths.FSMEM_CONV.format(results=FSMEM.results, bench=MAIN_BENCHMARK, conv=wc.conv)}/{FSMEM_BUILDER}",
    log:
        FSMEM.log_of("fsmem_table", "conv"),
    conda:
        FSMEM.conda_env
    shell:
        "{params.cmd} input={params.folder} out=$(dirname {output.csv}) > {log} 2>&1"


rule fsmem_table13:
    input:
        [f"{paths.answers_dir(paths.variant_dir(FSMEM.results, MAIN_BENCHMARK, 'conv-50', v, FSMEM_BUILDER), 'center', FSMEM_SEARCHER)}/{paths.ANSWERS_FILE}"
         for v in FSMEM_VARIANTS],
    output:
        FSMEM.table13,
    params:
        **FSMEM.stage_params("fsmem_table13", lambda wc: [f"fsmem.benchmark={MAIN_BENCHMARK}", "fsmem.harness=center"]),
        out=FSMEM.out_folder,
    log:
        FSMEM.log_of("fsmem_table13"),
    conda:
        FSMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
