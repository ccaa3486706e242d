# Stage 1: the Synthetic Graph World. One world per family x size x seed.
from tailmem import paths

wildcard_constraints:
    n=r"\d+",
    seed=r"\d+",


rule graphworld:
    output:
        f"{paths.GRAPHWORLD.format(results=RESULTS, family='{family}', n='{n}', seed='{seed}')}/{paths.WORLD_FILE}",
    params:
        cmd=lambda wc: tm("graphworld", "graph", family=wc.family),
    log:
        f"{RESULTS}/logs/graphworld/{{family}}_n{{n}}_seed{{seed}}.log",
    shell:
        "{params.cmd} graph={wildcards.family} graph.n={wildcards.n} seed={wildcards.seed} "
        "out=$(dirname {output}) > {log} 2>&1"
