# The run's static website: every table and figure of the scale, its provenance, and one page per
# question, step or game behind them, under <results>/site/ (open <results>/site/index.html from disk).
#   snakemake --cores 2 --config scale=smoke site
# Its inputs are the products of `all`: a rerun of any stage rewrites the tables it feeds, so the site is rebuilt
# exactly when something it shows changed (and when its code or the `scale`/`llm` config digest does).
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule site:
    input:
        TAILMEM.site_inputs,
    output:
        TAILMEM.site_targets,
    params:
        **TAILMEM.stage_params("site"),
        out=TAILMEM.out_folder,
    log:
        TAILMEM.log_of("site"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"
