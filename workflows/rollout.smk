# Stage 2: agent rollouts; each writes the per-step access trace and the access-count vector.


rule rollout:
    input:
        world=rules.graphworld.output[0],
    output:
        f"{paths.wild(paths.ROLLOUT, results=RESULTS)}/{paths.TRACE_FILE}",
    params:
        **stage_params("rollout", _run_args, family=lambda wc: wc.family),
    log:
        log_of("rollout", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input=$(dirname {input.world}) out=$(dirname {output}) > {log} 2>&1"
