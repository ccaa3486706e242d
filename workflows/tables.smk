# Stage 5: tables and figures. Targets reachable by name: `snakemake tables_random_walk figures_random_walk`.

_RW_RUNS = targets.random_walk_runs(CFG)
# the random walk and the controller study's policy on the same worlds (the tail-shape claim; Figures 3/5 draw
# the first control seed's worlds, then the random walk at the largest size)
_TAIL_CONTRAST = targets.tail_contrast_runs(CFG)
_FIGURE_RUNS = [r for runs in targets.figure_runs(CFG) for r in runs]
TABLES_RANDOM_WALK = [f for stem in outputs.RANDOM_WALK_TABLES for f in table(stem)]
FIGURES_RANDOM_WALK = [f for stem in outputs.RANDOM_WALK_FIGURES for f in figure(stem)]


rule tables_random_walk:
    input:
        [str(r.audit_file(RESULTS)) for r in _RW_RUNS],
        [str(r.audit_file(RESULTS)) for r in _TAIL_CONTRAST],
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
        [str(r.audit_file(RESULTS)) for r in _FIGURE_RUNS],
        [str(r.trace_file(RESULTS)) for r in _FIGURE_RUNS],
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
