# Stage 4 (graph world): the controller study. Its design check first: the model-free twin says which steps can tell
# each claim's arms apart (a model slice's controller jobs predict there only). Each arm replays a semantic/LLM-policy
# trajectory under one memory controller (paper 1 Tables 4-6, Figures 4, 6, 7). Target: `snakemake control_report`.
from tailmem import roles
from tailmem.dag import plan_of

CONTROLLER = plan_of(config, workflow.basedir, "controller")  # controller/plan.py


rule design_check:
    input:
        unpack(CONTROLLER.design_inputs),
    output:
        twin=CONTROLLER.design_twin_file,
        pairs=CONTROLLER.design_pairs_file,
    params:
        **CONTROLLER.stage_params("design_check", CONTROLLER.run_args, family=CONTROLLER.family),
    log:
        CONTROLLER.log_of("design_check", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        CONTROLLER.conda_env
    shell:
        "{params.cmd} control.world=$(dirname {input.world}) input=$(dirname {input.trace}) "
        "out=$(dirname {output.twin}) > {log} 2>&1"


# the plan reads every run's twin: the effect a claim is planned for and its spread between runs
rule design_plan:
    input:
        twin=CONTROLLER.design_twin_file,
        pairs=CONTROLLER.design_pairs,
    output:
        plan=CONTROLLER.design_plan_file,
    params:
        **CONTROLLER.stage_params("design_plan", CONTROLLER.run_args, family=CONTROLLER.family),
    log:
        CONTROLLER.log_of("design_plan", "policy", "agent", "retrieval", "family", "n", "seed"),
    conda:
        CONTROLLER.conda_env
    shell:
        "{params.cmd} input=$(dirname {input.twin}) out=$(dirname {output.plan}) > {log} 2>&1"


# the study's rows of the design check's table (tables/design_check: stage design_table adds the other studies')
rule controller_design_rows:
    input:
        CONTROLLER.design_plans,
    output:
        CONTROLLER.design_rows("controller"),
    params:
        **CONTROLLER.stage_params("controller_design_rows"),
    log:
        CONTROLLER.log_of("controller_design_rows"),
    conda:
        CONTROLLER.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"


rule control:
    input:
        unpack(CONTROLLER.control_inputs),
    output:
        CONTROLLER.control_summary_file,
    params:
        **CONTROLLER.stage_params("control", CONTROLLER.control_args, family=CONTROLLER.family),
        artifacts=CONTROLLER.artifact_args,
    log:
        CONTROLLER.log_of("control", "policy", "agent", "retrieval", "family", "n", "seed", "predictor", "arm"),
    conda:
        CONTROLLER.conda_env
    resources:
        llm_slots=CONTROLLER.llm_slots(roles.PREDICTOR),  # calls in flight (docs/llm.md)
    shell:
        "TAILMEM_LLM_SLOTS={resources.llm_slots} {params.cmd} {params.artifacts} control.world=$(dirname {input.world}) input=$(dirname {input.trace}) "
        "out=$(dirname {output}) > {log} 2>&1"


rule control_report:
    input:
        [str(r.summary_file(CONTROLLER.results)) for r in CONTROLLER.control_runs],
        [str(r.audit_file(CONTROLLER.results)) for r in CONTROLLER.policy_runs],
        CONTROLLER.design_plans if CONTROLLER.cfg.control.plan else [],
    output:
        [report(t, category="Controller study", subcategory="tables") for t in CONTROLLER.tables_control],
        [report(f, category="Controller study", subcategory="figures") for f in CONTROLLER.figures_control],
    params:
        **CONTROLLER.stage_params("control_report"),
    log:
        CONTROLLER.log_of("control_report"),
    conda:
        CONTROLLER.conda_env
    shell:
        "{params.cmd} > {log} 2>&1"
