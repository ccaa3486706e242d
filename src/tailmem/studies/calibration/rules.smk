# The calibration study: which random-walk protocol, among those paper 1 leaves open, reproduces its
# Table 7, Table 2's slopes and Table 8's order. Target by name: `snakemake calibration`.
from tailmem import graph_runs as targets
from tailmem.dag import plan_of

CALIBRATION = plan_of(config, workflow.basedir, "calibration")  # calibration/plan.py


rule calibration:
    input:
        [str(f) for f in targets.calibration_worlds(CALIBRATION.cfg)],
    output:
        [report(t, category="Random walk", subcategory="calibration") for t in CALIBRATION.tables_calibration],
        CALIBRATION.calibration_protocols,
    params:
        **CALIBRATION.stage_params("calibration"),
        out=CALIBRATION.out_folder,
    log:
        CALIBRATION.log_of("calibration"),
    conda:
        CALIBRATION.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
