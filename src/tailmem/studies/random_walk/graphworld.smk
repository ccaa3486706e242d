# Stage 1: the Synthetic Graph World. One world per family x size x seed.
from tailmem.dag import plan_of

RANDOM_WALK = plan_of(config, workflow.basedir, "random_walk")  # random_walk/plan.py


rule graphworld:
    output:
        RANDOM_WALK.world_file,
    params:
        **RANDOM_WALK.stage_params("graphworld", lambda wc: [f"graph={wc.family}", f"graph.n={wc.n}", f"seed={wc.seed}"],
                       family=RANDOM_WALK.family),
    log:
        RANDOM_WALK.log_of("graphworld", "family", "n", "seed"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} out=$(dirname {output}) > {log} 2>&1"
