# Stage 2: agent rollouts; each writes the per-step access trace and the access-count vector.


def _run_args(wc):
    """The overrides naming one run: world, policy, retrieval design, seed."""
    return [f"graph={wc.family}", f"graph.n={wc.n}", f"seed={wc.seed}", f"policy={wc.policy}",
            f"retrieval={wc.retrieval}"]


rule rollout:
    input:
        world=rules.graphworld.output[0],
    output:
        f"{paths.wild(paths.ROLLOUT, results=RESULTS)}/{paths.TRACE_FILE}",
    params:
        **stage_params("rollout", _run_args, family=lambda wc: wc.family),
    log:
        log_of("rollout", "policy", "retrieval", "family", "n", "seed"),
    shell:
        "{params.cmd} input=$(dirname {input.world}) out=$(dirname {output}) > {log} 2>&1"
