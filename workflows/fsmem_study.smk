# The filesystem-memory study (issue 6): one target per research question, each a table or figure.
#   snakemake --cores 2 fsmem_study          # everything below
#   snakemake --cores 2 fsmem_rq3_strength   # one study
# Runs are enumerated by tailmem/fsmem/study.py from the same config the stages read. Needs workflows/fsmem.smk.
from tailmem.fsmem import study as fsmem_study_runs

FSMEM_MAIN = fsmem_study_runs.main_runs(CFG)
FSMEM_HARNESS = fsmem_study_runs.harness_runs(CFG)
FSMEM_STRENGTH = fsmem_study_runs.strength_runs(CFG)
FSMEM_REPLICATES = fsmem_study_runs.replicate_runs(CFG)
FSMEM_T = paths.TABLES.format(results=RESULTS)
JUDGE_VERDICTS = f"{FSMEM_T}/{outputs.JUDGE_VERDICTS}"  # workflows/judges.smk: the claims read each judge's verdicts
_JUDGED = {"fsmem_claims": [JUDGE_VERDICTS] if CFG.judges.claims else []}


# study stage -> (its output files, the runs it reads); each rule below is named after its stage.
_STUDY_RUNS = {
    "fsmem_shape": FSMEM_MAIN,
    "fsmem_retrieval": FSMEM_MAIN,
    "fsmem_strength": FSMEM_STRENGTH,
    "fsmem_harness": FSMEM_HARNESS,
    "fsmem_hierarchy": FSMEM_MAIN + FSMEM_HARNESS,
    "fsmem_costs": FSMEM_MAIN + FSMEM_HARNESS + FSMEM_STRENGTH + FSMEM_REPLICATES,
    "fsmem_replicates": FSMEM_REPLICATES,  # table fsmem_store_replicates
    "fsmem_claims": FSMEM_MAIN + FSMEM_HARNESS + FSMEM_STRENGTH,  # table claims_fsmem
}
FSMEM_STUDY = {stage: (table(outputs.FSMEM_STUDY_TABLES[stage]), runs) for stage, runs in _STUDY_RUNS.items()}
FSMEM_GROWTH = (table(outputs.FSMEM_GROWTH) + [f"{FSMEM_T}/{outputs.FSMEM_GROWTH}_atlas.csv"]
                + figure(outputs.FSMEM_GROWTH))
FSMEM_ACCESS = (table(outputs.FSMEM_ACCESS) + [f"{FSMEM_T}/{outputs.FSMEM_ACCESS_CCDF}.csv"]
                + [f for unit in outputs.FSMEM_ACCESS_UNITS for f in figure(f"{outputs.FSMEM_ACCESS_CCDF}_{unit}")])
FSMEM_PERSONAMEM = table(outputs.FSMEM_PERSONAMEM)
FSMEM_STUDY_TARGETS = [f for outs, _ in FSMEM_STUDY.values() for f in outs] + FSMEM_GROWTH + FSMEM_ACCESS + FSMEM_PERSONAMEM


rule fsmem_study:
    input:
        FSMEM_STUDY_TARGETS,


# -- RQ3: one store per builder model, one answer set per searcher model ------------------------------------
_STRENGTH = paths.wild(paths.FSMEM_STRENGTH, results=RESULTS)
_HARNESS = paths.wild(paths.FSMEM_HARNESS, results=RESULTS)


rule fsmem_strength_store:
    input:
        _priced_strength_grid,
    output:
        f"{_STRENGTH}/{paths.BUILD_FILE}",
    params:
        **stage_params("fsmem_build", lambda wc: _store_args(wc) + _model("builder", wc.builder)),
    log:
        log_of("fsmem_strength_store", "bench", "conv", "builder", "variant"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_strength_answers:
    input:
        f"{_STRENGTH}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=_STRENGTH)}/{paths.ANSWERS_FILE}",
    params:
        **stage_params("fsmem_answer", lambda wc: _answer_args(wc) + _model("searcher", wc.searcher)),
    log:
        log_of("fsmem_strength_answers", "bench", "conv", "builder", "variant", "harness", "searcher"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


# -- RQ5: one store per build harness, searched through the same harness ------------------------------------
# (the main build's harness reuses the main store: tailmem.paths.harness_build_dir)
rule fsmem_harness_store:
    output:
        f"{_HARNESS}/{paths.BUILD_FILE}",
    params:
        **stage_params("fsmem_build", lambda wc: _store_args(wc) + [f"fsmem.build_harness={wc.bharness}"]),
    log:
        log_of("fsmem_harness_store", "bench", "conv", "builder", "bharness", "variant"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_harness_answers:
    input:
        f"{_HARNESS}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=_HARNESS)}/{paths.ANSWERS_FILE}",
    params:
        **stage_params("fsmem_answer", _answer_args),
    log:
        log_of("fsmem_harness_answers", "bench", "conv", "builder", "bharness", "variant", "harness", "searcher"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


# -- replicates: the same store built again with the builder's sampling seed set (replicate 0 = the main store) --
_REPLICATE = paths.wild(paths.FSMEM_REPLICATE, results=RESULTS)


rule fsmem_replicate_store:
    output:
        f"{_REPLICATE}/{paths.BUILD_FILE}",
    params:
        **stage_params("fsmem_build", lambda wc: _store_args(wc) + [f"fsmem.replicate={wc.replicate}"]),
    log:
        log_of("fsmem_replicate_store", "bench", "conv", "builder", "variant", "replicate"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"


rule fsmem_replicate_answers:
    input:
        f"{_REPLICATE}/{paths.BUILD_FILE}",
    output:
        f"{paths.wild(paths.ANSWERS, store=_REPLICATE)}/{paths.ANSWERS_FILE}",
    params:
        **stage_params("fsmem_answer", _answer_args),
    log:
        log_of("fsmem_replicate_answers", "bench", "conv", "builder", "variant", "replicate", "harness", "searcher"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"


# -- the study tables ----------------------------------------------------------------------------------------
for _stage, (_outs, _runs) in FSMEM_STUDY.items():

    rule:
        name:
            _stage
        input:
            _fsmem_files(_runs),
            _JUDGED.get(_stage, []),
        output:
            _outs,
        params:
            **stage_params(_stage),
            out=out_folder,
        log:
            log_of(_stage),
        conda:
            CONDA_ENV
        shell:
            "{params.cmd} out={params.out} > {log} 2>&1"


rule fsmem_growth:
    input:
        _fsmem_files(r for r in FSMEM_MAIN if r.variant == CFG.fsmem.study.growth_variant),
    output:
        FSMEM_GROWTH,
    params:
        **stage_params("fsmem_growth"),
        out=out_folder,
    log:
        log_of("fsmem_growth"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule fsmem_access:
    input:
        _fsmem_files(FSMEM_MAIN + FSMEM_HARNESS),
    output:
        FSMEM_ACCESS,
    params:
        **stage_params("fsmem_access"),
        out=out_folder,
    log:
        log_of("fsmem_access"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule fsmem_personamem:
    input:
        _personamem_data,
    output:
        FSMEM_PERSONAMEM,
    params:
        **stage_params("fsmem_personamem"),
        out=out_folder,
    log:
        log_of("fsmem_personamem"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


# Target names per research question (the rules above are named after their stages).
rule fsmem_rq1_store_shape:
    input:
        FSMEM_STUDY["fsmem_shape"][0],


rule fsmem_rq2_retrieval:
    input:
        FSMEM_STUDY["fsmem_retrieval"][0],


rule fsmem_rq3_strength:
    input:
        FSMEM_STUDY["fsmem_strength"][0],


rule fsmem_rq4_growth:
    input:
        FSMEM_GROWTH,


rule fsmem_rq5_harness:
    input:
        FSMEM_STUDY["fsmem_harness"][0],
