# Stage 5: tables and figures. Targets reachable by name: `snakemake tables_random_walk figures_random_walk`.
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule tables_random_walk:
    input:
        [str(r.audit_file(TAILMEM.results)) for r in TAILMEM.random_walk_runs],
        [str(r.audit_file(TAILMEM.results)) for r in TAILMEM.tail_contrast_runs],
    output:
        [report(t, category="Random walk", subcategory="tables") for t in TAILMEM.tables_random_walk],
    params:
        **TAILMEM.stage_params("tables"),
        out=TAILMEM.out_folder,
    log:
        TAILMEM.log_of("tables_random_walk"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule figures_random_walk:
    input:
        [str(r.audit_file(TAILMEM.results)) for r in TAILMEM.figure_runs],
        [str(r.trace_file(TAILMEM.results)) for r in TAILMEM.figure_runs],
    output:
        [report(f, category="Random walk", subcategory="figures") for f in TAILMEM.figures_random_walk],
    params:
        **TAILMEM.stage_params("figures"),
        out=TAILMEM.out_folder,
    log:
        TAILMEM.log_of("figures_random_walk"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
