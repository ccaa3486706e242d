# The filesystem-memory study (issue 6): one target per research question, each a table or figure.
#   snakemake --cores 2 fsmem_study          # everything below
#   snakemake --cores 2 fsmem_rq3_strength   # one study
# Runs are enumerated by tailmem/fsmem/study.py from the same config the stages read. Needs workflows/fsmem.smk.
from tailmem.fsmem import study as fsmem_study_runs

FSMEM_MAIN = fsmem_study_runs.main_runs(CFG)
FSMEM_HARNESS = fsmem_study_runs.harness_runs(CFG)
FSMEM_STRENGTH = fsmem_study_runs.strength_runs(CFG)
FSMEM_T = f"{RESULTS}/tables"


def _fsmem_files(runs):
    return sorted({str(f) for r in runs for f in (r.build_file, r.answers_file)})


def _fsmem_table(stem):
    return [f"{FSMEM_T}/{stem}.csv", f"{FSMEM_T}/{stem}.md"]


FSMEM_STUDY = {
    "fsmem_shape": (_fsmem_table("fsmem_rq1_store_shape"), FSMEM_MAIN),
    "fsmem_retrieval": (_fsmem_table("fsmem_rq2_retrieval"), FSMEM_MAIN),
    "fsmem_strength": (_fsmem_table("fsmem_rq3_strength"), FSMEM_STRENGTH),
    "fsmem_harness": (_fsmem_table("fsmem_rq5_harness"), FSMEM_HARNESS),
    "fsmem_hierarchy": (_fsmem_table("fsmem_hierarchy"), FSMEM_MAIN + FSMEM_HARNESS),
    "fsmem_costs": (_fsmem_table("fsmem_costs"), FSMEM_MAIN + FSMEM_HARNESS + FSMEM_STRENGTH),
}
FSMEM_GROWTH = _fsmem_table("fsmem_rq4_growth") + [f"{FSMEM_T}/fsmem_rq4_growth_atlas.csv",
                                                   f"{FIGURES}/fsmem_rq4_growth.png", f"{FIGURES}/fsmem_rq4_growth.pdf"]
FSMEM_ACCESS = _fsmem_table("fsmem_access_audit") + [f"{FSMEM_T}/fsmem_access_ccdf.csv"] + expand(
    f"{FIGURES}/fsmem_access_ccdf_{{unit}}.{{ext}}", unit=["file", "section"], ext=["png", "pdf"])
FSMEM_PERSONAMEM = _fsmem_table("fsmem_personamem")
FSMEM_STUDY_TARGETS = [f for outs, _ in FSMEM_STUDY.values() for f in outs] + FSMEM_GROWTH + FSMEM_ACCESS + FSMEM_PERSONAMEM


rule fsmem_study:
    input:
        FSMEM_STUDY_TARGETS,


# -- RQ3: one store per builder model, one answer set per searcher model ------------------------------------
def _model(role, name):
    return "" if name == fsmem_study_runs.PROGRAMMATIC else f"llm.roles.{role}.model={name}"


def _priced_strength_grid(wildcards):
    """No input: checks, when the DAG first needs a grid store, that every grid model has a price."""
    fsmem_study_runs.check_strength_prices(CFG)
    return []


rule fsmem_strength_store:
    input:
        _priced_strength_grid,
    output:
        f"{FSMEM_ROOT}/strength/{{bench}}/{{conv}}/{{builder}}/{{variant}}/build.json",
    wildcard_constraints:
        bench="[^/]+",
        conv="[^/]+",
        builder="[^/]+",
        variant="[^/]+",
    params:
        cmd=lambda wc: tm("fsmem_build", "fsmem", "llm", "data_dir"),
        model=lambda wc: _model("builder", wc.builder),
    shell:
        "{params.cmd} {params.model} fsmem.benchmark={wildcards.bench} fsmem.conversation={wildcards.conv}"
        " fsmem.variant={wildcards.variant} out=$(dirname {output})"


rule fsmem_strength_answers:
    input:
        f"{FSMEM_ROOT}/strength/{{bench}}/{{conv}}/{{builder}}/{{variant}}/build.json",
    output:
        f"{FSMEM_ROOT}/strength/{{bench}}/{{conv}}/{{builder}}/{{variant}}/answers/{{harness}}/{{searcher}}/answers.json",
    wildcard_constraints:
        bench="[^/]+",
        conv="[^/]+",
        builder="[^/]+",
        variant="[^/]+",
        harness="[^/]+",
        searcher="[^/]+",
    params:
        cmd=lambda wc: tm("fsmem_answer", "fsmem", "llm", "data_dir"),
        model=lambda wc: _model("searcher", wc.searcher),
    shell:
        "{params.cmd} {params.model} fsmem.benchmark={wildcards.bench} fsmem.conversation={wildcards.conv}"
        " fsmem.variant={wildcards.variant} fsmem.harness={wildcards.harness}"
        " input=$(dirname {input}) out=$(dirname {output})"


# -- RQ5: one store per build harness, searched through the same harness ------------------------------------
# (the main build's harness reuses the main store: tailmem.fsmem.layout.harness_build_dir)
rule fsmem_harness_store:
    output:
        f"{FSMEM_ROOT}/harness/{{bench}}/{{conv}}/{{bharness}}/{{variant}}/build.json",
    wildcard_constraints:
        bench="[^/]+",
        conv="[^/]+",
        bharness="center|center_bm25|shell",
        variant="[^/]+",
    params:
        cmd=lambda wc: tm("fsmem_build", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} fsmem.benchmark={wildcards.bench} fsmem.conversation={wildcards.conv}"
        " fsmem.variant={wildcards.variant} fsmem.build_harness={wildcards.bharness} out=$(dirname {output})"


rule fsmem_harness_answers:
    input:
        f"{FSMEM_ROOT}/harness/{{bench}}/{{conv}}/{{bharness}}/{{variant}}/build.json",
    output:
        f"{FSMEM_ROOT}/harness/{{bench}}/{{conv}}/{{bharness}}/{{variant}}/answers/{{harness}}/answers.json",
    wildcard_constraints:
        bench="[^/]+",
        conv="[^/]+",
        bharness="center|center_bm25|shell",
        variant="[^/]+",
        harness="center|center_bm25|shell",
    params:
        cmd=lambda wc: tm("fsmem_answer", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} fsmem.benchmark={wildcards.bench} fsmem.conversation={wildcards.conv}"
        " fsmem.variant={wildcards.variant} fsmem.harness={wildcards.harness}"
        " input=$(dirname {input}) out=$(dirname {output})"


# -- the study tables ----------------------------------------------------------------------------------------
for _stage, (_outs, _runs) in FSMEM_STUDY.items():

    rule:
        name:
            _stage
        input:
            _fsmem_files(_runs),
        output:
            _outs,
        params:
            cmd=tm(_stage, "fsmem", "llm", "data_dir"),
        shell:
            "{params.cmd} out={FSMEM_T}"


rule fsmem_growth:
    input:
        _fsmem_files(r for r in FSMEM_MAIN if r.variant == CFG.fsmem.study.growth_variant),
    output:
        FSMEM_GROWTH,
    params:
        cmd=tm("fsmem_growth", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} out={FSMEM_T}"


rule fsmem_access:
    input:
        _fsmem_files(FSMEM_MAIN + FSMEM_HARNESS),
    output:
        FSMEM_ACCESS,
    params:
        cmd=tm("fsmem_access", "fsmem", "llm", "audit", "data_dir", "seed"),
    shell:
        "{params.cmd} out={FSMEM_T}"


def _personamem_data(wildcards):
    """The tiers' files that exist, so the table is redone when, e.g., the shared contexts are added."""
    from tailmem.data.personamem import contexts_path, questions_path

    pm = CFG.fsmem.personamem
    files = [f(pm.data_dir, t) for t in pm.tiers for f in (questions_path, contexts_path)]
    return [str(f) for f in files if f.exists()]


rule fsmem_personamem:
    input:
        _personamem_data,
    output:
        FSMEM_PERSONAMEM,
    params:
        cmd=tm("fsmem_personamem", "fsmem", "llm", "data_dir"),
    shell:
        "{params.cmd} out={FSMEM_T}"


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
