# Stage 3: the tail audit of each access-count vector (concentration, tail fits, bootstrap goodness of fit).
from tailmem.dag import plan_of

RANDOM_WALK = plan_of(config, workflow.basedir, "random_walk")  # random_walk/plan.py


rule audit:
    input:
        trace=RANDOM_WALK.trace_file,
    output:
        RANDOM_WALK.audit_file,
    params:
        **RANDOM_WALK.stage_params("audit", RANDOM_WALK.run_args, family=RANDOM_WALK.family),
    log:
        RANDOM_WALK.log_of("audit", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} input=$(dirname {input.trace}) out=$(dirname {output}) > {log} 2>&1"
