# Stage 2: agent rollouts; each writes the per-step access trace and the access-count vector.
from tailmem import paths


rule rollout:
    input:
        world=rules.graphworld.output[0],
    output:
        f"{paths.ROLLOUT.format(results=RESULTS, policy='{policy}', retrieval='{retrieval}', family='{family}', n='{n}', seed='{seed}')}/{paths.TRACE_FILE}",
    params:
        cmd=lambda wc: tm("rollout", "graph", "rollout", "policy", "retrieval", "llm", family=wc.family),
    log:
        f"{RESULTS}/logs/rollout/{{policy}}_{{retrieval}}_{{family}}_n{{n}}_seed{{seed}}.log",
    shell:
        "{params.cmd} graph={wildcards.family} graph.n={wildcards.n} seed={wildcards.seed} "
        "policy={wildcards.policy} retrieval={wildcards.retrieval} "
        "input=$(dirname {input.world}) out=$(dirname {output}) > {log} 2>&1"
