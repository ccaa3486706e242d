# Stage 3: the tail audit of each access-count vector (concentration, tail fits, bootstrap goodness of fit).
from tailmem import paths


rule audit:
    input:
        trace=rules.rollout.output[0],
    output:
        f"{paths.AUDIT.format(results=RESULTS, policy='{policy}', retrieval='{retrieval}', family='{family}', n='{n}', seed='{seed}')}/{paths.AUDIT_FILE}",
    params:
        cmd=lambda wc: tm("audit", "graph", "audit", family=wc.family),
    log:
        f"{RESULTS}/logs/audit/{{policy}}_{{retrieval}}_{{family}}_n{{n}}_seed{{seed}}.log",
    shell:
        "{params.cmd} graph={wildcards.family} graph.n={wildcards.n} seed={wildcards.seed} "
        "policy={wildcards.policy} retrieval={wildcards.retrieval} "
        "input=$(dirname {input.trace}) out=$(dirname {output}) > {log} 2>&1"
