# Stage 2: agent rollouts; each writes the per-step access trace and the access-count vector.
from tailmem import roles
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule rollout:
    input:
        world=TAILMEM.world_file,
    output:
        TAILMEM.trace_file,
    params:
        **TAILMEM.stage_params("rollout", TAILMEM.run_args, family=TAILMEM.family),
    log:
        TAILMEM.log_of("rollout", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        TAILMEM.conda_env
    resources:
        llm_slots=TAILMEM.llm_slots(roles.POLICY),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} input=$(dirname {input.world}) out=$(dirname {output}) > {log} 2>&1"
