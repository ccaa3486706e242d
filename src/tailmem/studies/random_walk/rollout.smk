# Stage 2: agent rollouts; each writes the per-step access trace and the access-count vector.
from tailmem import roles
from tailmem.dag import plan_of

RANDOM_WALK = plan_of(config, workflow.basedir, "random_walk")  # random_walk/plan.py


rule rollout:
    input:
        world=RANDOM_WALK.world_file,
    output:
        RANDOM_WALK.trace_file,
    params:
        **RANDOM_WALK.stage_params("rollout", RANDOM_WALK.run_args, family=RANDOM_WALK.family),
    log:
        RANDOM_WALK.log_of("rollout", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        RANDOM_WALK.conda_env
    resources:
        llm_slots=RANDOM_WALK.llm_slots(roles.POLICY),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} input=$(dirname {input.world}) out=$(dirname {output}) > {log} 2>&1"
