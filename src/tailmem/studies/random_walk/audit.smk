# Stage 3: the tail audit of each access-count vector (concentration, tail fits, bootstrap goodness of fit).
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule audit:
    input:
        trace=TAILMEM.trace_file,
    output:
        TAILMEM.audit_file,
    params:
        **TAILMEM.stage_params("audit", TAILMEM.run_args, family=TAILMEM.family),
    log:
        TAILMEM.log_of("audit", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} input=$(dirname {input.trace}) out=$(dirname {output}) > {log} 2>&1"
