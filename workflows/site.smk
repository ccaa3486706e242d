# The run's static website (issue 17): every table and figure of the scale, its provenance, and one page per
# question, step or game behind them, under <results>/site/ (open <results>/site/index.html from disk).
#   snakemake --cores 2 --config scale=smoke site
# Its inputs are the products of `all`: a rerun of any stage rewrites the tables it feeds, so the site is rebuilt
# exactly when something it shows changed (and when its code or the `scale`/`llm` config digest does).
SITE_DIR = f"{RESULTS}/site"
SITE_TARGETS = [f"{SITE_DIR}/index.html", f"{SITE_DIR}/site.json"]
SITE_INPUTS = (AUDIT_LOG_TARGETS + TABLES_RANDOM_WALK + FIGURES_RANDOM_WALK + TABLES_CALIBRATION + TABLES_CONTROL + FIGURES_CONTROL
               + ((FSMEM_TABLES + LONGMEMEVAL_TARGETS + FSMEM_STUDY_TARGETS + ALFWORLD_TARGETS) if DATA_READY else []))


rule site:
    input:
        SITE_INPUTS,
    output:
        SITE_TARGETS,
    params:
        **stage_params("site"),
        out=out_folder,
    log:
        log_of("site"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
