# The design check's table (tables/design_check): before any model call, can each study's paired claims be
# decided? Each study writes its own rows from its own config groups (rule <study>_design_rows, in the study's rule
# file), so a study's setting reruns its rows and this table only; this rule gathers them.
#   snakemake --cores 2 --config scale=smoke design_table
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule design_table:
    input:
        TAILMEM.design_rows_files,
    output:
        TAILMEM.design_targets,
    params:
        **TAILMEM.stage_params("design_table"),
    log:
        TAILMEM.log_of("design_table"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
