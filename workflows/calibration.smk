# The calibration study (issue 29): which random-walk protocol, among those paper 1 leaves open, reproduces its
# Table 7, Table 2's slopes and Table 8's order. Target by name: `snakemake calibration`.

TABLES_CALIBRATION = table(outputs.TABLE7_CALIBRATION)
CALIBRATION_PROTOCOLS = f"{paths.CALIBRATION.format(results=RESULTS)}/{paths.CALIBRATION_PROTOCOLS}"


rule calibration:
    input:
        [str(f) for f in targets.calibration_worlds(CFG)],
    output:
        [report(t, category="Random walk", subcategory="calibration") for t in TABLES_CALIBRATION],
        CALIBRATION_PROTOCOLS,
    params:
        **stage_params("calibration"),
        out=out_folder,
    log:
        log_of("calibration"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
