# Stage 5: tables and figures. Targets reachable by name: `snakemake tables_random_walk figures_random_walk`.
from tailmem.dag import plan_of

RANDOM_WALK = plan_of(config, workflow.basedir, "random_walk")  # random_walk/plan.py


rule tables_random_walk:
    input:
        [str(r.audit_file(RANDOM_WALK.results)) for r in RANDOM_WALK.random_walk_runs],
        [str(r.audit_file(RANDOM_WALK.results)) for r in RANDOM_WALK.tail_contrast_runs],
        [str(r.trace_file(RANDOM_WALK.results)) for r in RANDOM_WALK.tail_contrast_runs],
    output:
        [report(t, category="Random walk", subcategory="tables") for t in RANDOM_WALK.tables_random_walk],
    params:
        **RANDOM_WALK.stage_params("tables"),
        out=RANDOM_WALK.out_folder,
    log:
        RANDOM_WALK.log_of("tables_random_walk"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule figures_random_walk:
    input:
        [str(r.audit_file(RANDOM_WALK.results)) for r in RANDOM_WALK.figure_runs],
        [str(r.trace_file(RANDOM_WALK.results)) for r in RANDOM_WALK.figure_runs],
    output:
        [report(f, category="Random walk", subcategory="figures") for f in RANDOM_WALK.figures_random_walk],
    params:
        **RANDOM_WALK.stage_params("figures"),
        out=RANDOM_WALK.out_folder,
    log:
        RANDOM_WALK.log_of("figures_random_walk"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


# the LLM policy's tail-shape row of the design check (tables/design_check), from the study's config groups
rule random_walk_design_rows:
    output:
        RANDOM_WALK.design_rows("random_walk"),
    params:
        **RANDOM_WALK.stage_params("random_walk_design_rows"),
    log:
        RANDOM_WALK.log_of("random_walk_design_rows"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
