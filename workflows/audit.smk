# Stage 3: the tail audit of each access-count vector (concentration, tail fits, bootstrap goodness of fit).


rule audit:
    input:
        trace=rules.rollout.output[0],
    output:
        f"{paths.wild(paths.AUDIT, results=RESULTS)}/{paths.AUDIT_FILE}",
    params:
        **stage_params("audit", _run_args, family=lambda wc: wc.family),
    log:
        log_of("audit", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} input=$(dirname {input.trace}) out=$(dirname {output}) > {log} 2>&1"
