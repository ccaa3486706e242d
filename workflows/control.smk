# Stage 4 (graph world): the controller study. Each arm replays a semantic/LLM-policy trajectory under one
# memory controller (paper 1 Tables 4-6, Figures 4, 6, 7). Target by name: `snakemake control_report`.
from tailmem.control import arms as control_arms

_CONTROL_RUNS = targets.control_runs(CFG)
_POLICY_RUNS = targets.policy_runs(CFG)
TABLES_CONTROL = [f for stem in outputs.CONTROL_TABLES for f in table(stem)]
FIGURES_CONTROL = [f for stem in outputs.CONTROL_FIGURES for f in figure(stem)]


rule control:
    input:
        unpack(_control_inputs),
    output:
        f"{paths.wild(paths.CONTROL, results=RESULTS)}/{paths.SUMMARY_FILE}",
    params:
        **stage_params("control", _control_args, family=lambda wc: wc.family),
        budget=_budget_arg,
    log:
        log_of("control", "policy", "agent", "retrieval", "family", "n", "seed", "predictor", "arm"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} {params.budget} control.world=$(dirname {input.world}) input=$(dirname {input.trace}) "
        "out=$(dirname {output}) > {log} 2>&1"


rule control_report:
    input:
        [str(r.summary_file(RESULTS)) for r in _CONTROL_RUNS],
        [str(r.audit_file(RESULTS)) for r in _POLICY_RUNS],
    output:
        [report(t, category="Controller study", subcategory="tables") for t in TABLES_CONTROL],
        [report(f, category="Controller study", subcategory="figures") for f in FIGURES_CONTROL],
    params:
        **stage_params("control_report"),
    log:
        log_of("control_report"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} > {log} 2>&1"
