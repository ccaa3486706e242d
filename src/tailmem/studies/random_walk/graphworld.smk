# Stage 1: the Synthetic Graph World. One world per family x size x seed.
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule graphworld:
    output:
        TAILMEM.world_file,
    params:
        **TAILMEM.stage_params("graphworld", lambda wc: [f"graph={wc.family}", f"graph.n={wc.n}", f"seed={wc.seed}"],
                       family=TAILMEM.family),
    log:
        TAILMEM.log_of("graphworld", "family", "n", "seed"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"
