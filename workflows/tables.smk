# Stage 5: tables and figures. Targets reachable by name: `snakemake tables_random_walk figures_random_walk`.

_RW_RUNS = targets.random_walk_runs(CFG)
_RW_LARGEST = targets.largest_size_runs(CFG)
TABLES_RANDOM_WALK = [f for stem in outputs.RANDOM_WALK_TABLES for f in table(stem)]
FIGURES_RANDOM_WALK = [f for stem in outputs.RANDOM_WALK_FIGURES for f in figure(stem)]


rule tables_random_walk:
    input:
        [str(r.audit_file(RESULTS)) for r in _RW_RUNS],
    output:
        [report(t, category="Random walk", subcategory="tables") for t in TABLES_RANDOM_WALK],
    params:
        **stage_params("tables"),
        out=out_folder,
    log:
        log_of("tables_random_walk"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule figures_random_walk:
    input:
        [str(r.audit_file(RESULTS)) for r in _RW_LARGEST],
        [str(r.trace_file(RESULTS)) for r in _RW_LARGEST],
    output:
        [report(f, category="Random walk", subcategory="figures") for f in FIGURES_RANDOM_WALK],
    params:
        **stage_params("figures"),
        out=out_folder,
    log:
        log_of("figures_random_walk"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
