# The random-walk study's rules: graph worlds -> rollouts -> tail audits -> tables and figures.
#   snakemake --cores 2 tables_random_walk figures_random_walk
from tailmem import roles
from tailmem.dag import plan_of

RANDOM_WALK = plan_of(config, workflow.basedir, "random_walk")  # random_walk/plan.py


# -- graphworld ---------------------------------------------------------------------------------------------------
# Stage 1: the Synthetic Graph World. One world per family x size x seed.

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


# -- rollout ------------------------------------------------------------------------------------------------------
# Stage 2: agent rollouts; each writes the per-step access trace and the access-count vector.

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


# -- audit --------------------------------------------------------------------------------------------------------
# Stage 3: the tail audit of each access-count vector (concentration, tail fits, bootstrap goodness of fit).

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


# -- tables -------------------------------------------------------------------------------------------------------
# Stage 5: tables and figures. Targets reachable by name: `snakemake tables_random_walk figures_random_walk`.

rule tables_random_walk:
    input:
        [str(r.audit_file(RANDOM_WALK.results)) for r in RANDOM_WALK.random_walk_runs],
        [str(r.audit_file(RANDOM_WALK.results)) for r in RANDOM_WALK.tail_contrast_runs],
        [str(r.trace_file(RANDOM_WALK.results)) for r in RANDOM_WALK.tail_contrast_runs],
    output:
        [report(t, category="Random walk", subcategory="tables") for t in RANDOM_WALK.tables_random_walk],
    params:
        **RANDOM_WALK.stage_params("tables"),
        out=RANDOM_WALK.out_folder,
    log:
        RANDOM_WALK.log_of("tables_random_walk"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


rule figures_random_walk:
    input:
        [str(r.audit_file(RANDOM_WALK.results)) for r in RANDOM_WALK.figure_runs],
        [str(r.trace_file(RANDOM_WALK.results)) for r in RANDOM_WALK.figure_runs],
    output:
        [report(f, category="Random walk", subcategory="figures") for f in RANDOM_WALK.figures_random_walk],
    params:
        **RANDOM_WALK.stage_params("figures"),
        out=RANDOM_WALK.out_folder,
    log:
        RANDOM_WALK.log_of("figures_random_walk"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} out={params.out} > {log} 2>&1"


# the LLM policy's tail-shape row of the design check (tables/design_check), from the study's config groups
rule random_walk_design_rows:
    output:
        RANDOM_WALK.design_rows("random_walk"),
    params:
        **RANDOM_WALK.stage_params("random_walk_design_rows"),
    log:
        RANDOM_WALK.log_of("random_walk_design_rows"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
