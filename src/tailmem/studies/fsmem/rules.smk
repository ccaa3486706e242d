# The filesystem-memory study's rules: the LoCoMo (and REALTALK) stores, answers and tables, then one target per
# research question.   snakemake --cores 2 fsmem_locomo   |   snakemake --cores 2 fsmem_study
from tailmem import roles
from tailmem import outputs, paths
from tailmem.dag import plan_of
from tailmem.fsmem.benchmarks import MAIN_BENCHMARK

FSMEM = plan_of(config, workflow.basedir, "fsmem")  # fsmem/plan.py


# -- locomo -------------------------------------------------------------------------------------------------------
# Filesystem memory on the benchmarks of tailmem.fsmem.benchmarks (LoCoMo, REALTALK): build each variant's store,
# answer the questions through a search harness, one table per conversation of the main benchmark (LoCoMo).
# Paths: tailmem/paths.py.
#   snakemake --cores 2 fsmem_locomo

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


# -- the research questions ---------------------------------------------------------------------------------------
# The filesystem-memory study: one target per research question, each a table or figure.
#   snakemake --cores 2 fsmem_study          # everything below
#   snakemake --cores 2 fsmem_rq3_strength   # one study
# Runs are enumerated by tailmem/fsmem/run_list.py from the same config the stages read (through tailmem.dag);
# the main stores and answers are the rules above.

rule fsmem_study:
    input:
        FSMEM.fsmem_study_targets,


# -- RQ3: one store per builder model, one answer set per searcher model ------------------------------------
_STRENGTH = paths.wild(paths.FSMEM_STRENGTH, results=FSMEM.results)
_HARNESS = paths.wild(paths.FSMEM_HARNESS, results=FSMEM.results)


rule fsmem_strength_store:
    input:
        FSMEM.priced_strength_grid,
    output:
        f"{_STRENGTH}/{paths.BUILD_FILE}",
    params:
        **FSMEM.stage_params("fsmem_build", lambda wc: FSMEM.store_args(wc) + FSMEM.model(roles.BUILDER, wc.builder)),
    log:
        FSMEM.log_of("fsmem_strength_store", "bench", "conv", "builder", "variant"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.BUILDER),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_strength_answers:
    input:
        f"{_STRENGTH}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=_STRENGTH)}/{paths.ANSWERS_FILE}",
    params:
        **FSMEM.stage_params("fsmem_answer", lambda wc: FSMEM.answer_args(wc) + FSMEM.model(roles.SEARCHER, wc.searcher)),
    log:
        FSMEM.log_of("fsmem_strength_answers", "bench", "conv", "builder", "variant", "harness", "searcher"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.SEARCHER, roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


# -- RQ5: one store per build harness, searched through the same harness ------------------------------------
# (the main build's harness reuses the main store: tailmem.paths.harness_build_dir)
rule fsmem_harness_store:
    output:
        f"{_HARNESS}/{paths.BUILD_FILE}",
    params:
        **FSMEM.stage_params("fsmem_build", lambda wc: FSMEM.store_args(wc) + [f"fsmem.build_harness={wc.bharness}"]),
    log:
        FSMEM.log_of("fsmem_harness_store", "bench", "conv", "builder", "bharness", "variant"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.BUILDER),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_harness_answers:
    input:
        f"{_HARNESS}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=_HARNESS)}/{paths.ANSWERS_FILE}",
    params:
        **FSMEM.stage_params("fsmem_answer", FSMEM.answer_args),
    log:
        FSMEM.log_of("fsmem_harness_answers", "bench", "conv", "builder", "bharness", "variant", "harness", "searcher"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.SEARCHER, roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


# -- replicates: the same store built again with the builder's sampling seed set (replicate 0 = the main store) --
_REPLICATE = paths.wild(paths.FSMEM_REPLICATE, results=FSMEM.results)


rule fsmem_replicate_store:
    output:
        f"{_REPLICATE}/{paths.BUILD_FILE}",
    params:
        **FSMEM.stage_params("fsmem_build", lambda wc: FSMEM.store_args(wc) + [f"fsmem.replicate={wc.replicate}"]),
    log:
        FSMEM.log_of("fsmem_replicate_store", "bench", "conv", "builder", "variant", "replicate"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.BUILDER),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_replicate_answers:
    input:
        f"{_REPLICATE}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=_REPLICATE)}/{paths.ANSWERS_FILE}",
    params:
        **FSMEM.stage_params("fsmem_answer", FSMEM.answer_args),
    log:
        FSMEM.log_of("fsmem_replicate_answers", "bench", "conv", "builder", "variant", "replicate", "harness", "searcher"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.SEARCHER, roles.JUDGE),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


# -- the study tables ----------------------------------------------------------------------------------------
for _stage, (_outs, _runs) in FSMEM.fsmem_study.items():

    rule:
        name:
            _stage
        input:
            FSMEM.fsmem_files(_runs),
            FSMEM.judged_inputs if _stage == "fsmem_claims" else [],  # studies/judge_sensitivity/rules.smk
        output:
            _outs,
        params:
            **FSMEM.stage_params(_stage),
            out=FSMEM.out_folder,
        log:
            FSMEM.log_of(_stage),
        conda:
            FSMEM.conda_env
        shell:
            "{params.cmd} out={params.out} > {log} 2>&1"


rule fsmem_growth:
    input:
        FSMEM.fsmem_files(r for r in FSMEM.fsmem_main if r.variant == FSMEM.cfg.fsmem.study.growth_variant),
    output:
        FSMEM.fsmem_growth_outputs,
    params:
        **FSMEM.stage_params("fsmem_growth"),
        out=FSMEM.out_folder,
    log:
        FSMEM.log_of("fsmem_growth"),
    conda:
        FSMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule fsmem_access:
    input:
        FSMEM.fsmem_files(FSMEM.fsmem_main + FSMEM.fsmem_harness),
    output:
        FSMEM.fsmem_access_outputs,
    params:
        **FSMEM.stage_params("fsmem_access"),
        out=FSMEM.out_folder,
    log:
        FSMEM.log_of("fsmem_access"),
    conda:
        FSMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule fsmem_personamem:
    input:
        FSMEM.personamem_data,
    output:
        FSMEM.fsmem_personamem_outputs,
    params:
        **FSMEM.stage_params("fsmem_personamem"),
        out=FSMEM.out_folder,
    log:
        FSMEM.log_of("fsmem_personamem"),
    conda:
        FSMEM.conda_env
    resources:
        llm_slots=FSMEM.llm_slots(roles.BUILDER, roles.SEARCHER),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} out={params.out} > {log} 2>&1"


# Target names per research question (the rules above are named after their stages).
rule fsmem_rq1_store_shape:
    input:
        FSMEM.fsmem_study["fsmem_shape"][0],


rule fsmem_rq2_retrieval:
    input:
        FSMEM.fsmem_study["fsmem_retrieval"][0],


rule fsmem_rq3_strength:
    input:
        FSMEM.fsmem_study["fsmem_strength"][0],


rule fsmem_rq4_growth:
    input:
        FSMEM.fsmem_growth_outputs,


rule fsmem_rq5_harness:
    input:
        FSMEM.fsmem_study["fsmem_harness"][0],


# the study's row of the design check (tables/design_check), from its own config groups
rule fsmem_design_rows:
    output:
        FSMEM.design_rows("fsmem"),
    params:
        **FSMEM.stage_params("fsmem_design_rows"),
    log:
        FSMEM.log_of("fsmem_design_rows"),
    conda:
        FSMEM.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
