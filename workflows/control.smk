# Stage 4 (graph world): the controller study. Each arm replays a semantic/LLM-policy trajectory under one
# memory controller (paper 1 Tables 4-6, Figures 4, 6, 7). Target by name: `snakemake control_report`.
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule control:
    input:
        unpack(TAILMEM.control_inputs),
    output:
        TAILMEM.control_summary_file,
    params:
        **TAILMEM.stage_params("control", TAILMEM.control_args, family=TAILMEM.family),
        budget=TAILMEM.budget_arg,
    log:
        TAILMEM.log_of("control", "policy", "agent", "retrieval", "family", "n", "seed", "predictor", "arm"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} {params.budget} control.world=$(dirname {input.world}) input=$(dirname {input.trace}) "
        "out=$(dirname {output}) > {log} 2>&1"


rule control_report:
    input:
        [str(r.summary_file(TAILMEM.results)) for r in TAILMEM.control_runs],
        [str(r.audit_file(TAILMEM.results)) for r in TAILMEM.policy_runs],
    output:
        [report(t, category="Controller study", subcategory="tables") for t in TAILMEM.tables_control],
        [report(f, category="Controller study", subcategory="figures") for f in TAILMEM.figures_control],
    params:
        **TAILMEM.stage_params("control_report"),
    log:
        TAILMEM.log_of("control_report"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
