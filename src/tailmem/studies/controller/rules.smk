# Stage 4 (graph world): the controller study. Its design check first: the model-free twin says which steps can tell
# each claim's arms apart (a model slice's controller jobs predict there only). Each arm replays a semantic/LLM-policy
# trajectory under one memory controller (paper 1 Tables 4-6, Figures 4, 6, 7). Target: `snakemake control_report`.
from tailmem import roles
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule design_check:
    input:
        unpack(TAILMEM.design_inputs),
    output:
        plan=TAILMEM.design_plan_file,
        pairs=TAILMEM.design_pairs_file,
    params:
        **TAILMEM.stage_params("design_check", TAILMEM.run_args, family=TAILMEM.family),
    log:
        TAILMEM.log_of("design_check", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} control.world=$(dirname {input.world}) input=$(dirname {input.trace}) "
        "out=$(dirname {output.plan}) > {log} 2>&1"


rule design_check_report:
    input:
        TAILMEM.design_plans,
    output:
        TAILMEM.tables_design,
    params:
        **TAILMEM.stage_params("design_check_report"),
    log:
        TAILMEM.log_of("design_check_report"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"


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
    resources:
        llm_slots=TAILMEM.llm_slots(roles.PREDICTOR),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} {params.budget} control.world=$(dirname {input.world}) input=$(dirname {input.trace}) "
        "out=$(dirname {output}) > {log} 2>&1"


rule control_report:
    input:
        [str(r.summary_file(TAILMEM.results)) for r in TAILMEM.control_runs],
        [str(r.audit_file(TAILMEM.results)) for r in TAILMEM.policy_runs],
        TAILMEM.design_plans if TAILMEM.cfg.control.plan else [],
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
