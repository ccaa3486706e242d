# Stage 1: the Synthetic Graph World. One world per family x size x seed.


rule graphworld:
    output:
        f"{paths.wild(paths.GRAPHWORLD, results=RESULTS)}/{paths.WORLD_FILE}",
    params:
        **stage_params("graphworld", lambda wc: [f"graph={wc.family}", f"graph.n={wc.n}", f"seed={wc.seed}"],
                       family=lambda wc: wc.family),
    log:
        log_of("graphworld", "family", "n", "seed"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"
