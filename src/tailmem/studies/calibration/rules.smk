# The calibration study: which random-walk protocol, among those paper 1 leaves open, reproduces its
# Table 7, Table 2's slopes and Table 8's order. Target by name: `snakemake calibration`.
from tailmem import graph_runs as targets
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule calibration:
    input:
        [str(f) for f in targets.calibration_worlds(TAILMEM.cfg)],
    output:
        [report(t, category="Random walk", subcategory="calibration") for t in TAILMEM.tables_calibration],
        TAILMEM.calibration_protocols,
    params:
        **TAILMEM.stage_params("calibration"),
        out=TAILMEM.out_folder,
    log:
        TAILMEM.log_of("calibration"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
