# Stage 4 (graph world): the controller study. Each arm replays a semantic/LLM-policy trajectory under one
# memory controller (paper 1 Tables 4-6, Figures 4, 6, 7). Target by name: `snakemake control_report`.
from tailmem import paths
from tailmem.control import arms as control_arms
from tailmem.report import targets as _targets

_CONTROL_RUNS = _targets.control_runs(CFG)
_POLICY_RUNS = _targets.policy_runs(CFG)
TABLES_CONTROL = [f"{RESULTS}/tables/{stem}.{ext}" for stem in _targets.CONTROL_TABLES for ext in ("csv", "md")]
FIGURES_CONTROL = [f"{FIGURES}/{stem}.{ext}" for stem in _targets.CONTROL_FIGURES for ext in ("png", "pdf")]


def _control_inputs(wc):
    keys = dict(results=RESULTS, family=wc.family, n=wc.n, seed=wc.seed)
    inputs = {
        "world": f"{paths.GRAPHWORLD.format(**keys)}/{paths.WORLD_FILE}",
        "trace": f"{paths.ROLLOUT.format(policy=wc.policy, retrieval=wc.retrieval, **keys)}/{paths.TRACE_FILE}",
    }
    reference = control_arms.matched_reference(wc.arm)
    if reference:
        inputs["budget"] = f"{paths.CONTROL.format(policy=wc.policy, retrieval=wc.retrieval, arm=reference, **keys)}/{paths.SUMMARY_FILE}"
    return inputs


def _control_args(wc, input):
    args = control_arms.overrides(wc.arm) + [f"control.arm={wc.arm}"]
    if "budget" in input.keys():
        args.append(f"control.budget_from={input.budget}")
    return " ".join(args)


rule control:
    input:
        unpack(_control_inputs),
    output:
        f"{paths.CONTROL.format(results=RESULTS, policy='{policy}', retrieval='{retrieval}', family='{family}', n='{n}', seed='{seed}', arm='{arm}')}/{paths.SUMMARY_FILE}",
    params:
        cmd=lambda wc: tm("control", "graph", "memory", "control", "llm", family=wc.family),
        arm=lambda wc, input: _control_args(wc, input),
    log:
        f"{RESULTS}/logs/control/{{policy}}_{{retrieval}}_{{family}}_n{{n}}_seed{{seed}}_{{arm}}.log",
    shell:
        "{params.cmd} graph={wildcards.family} graph.n={wildcards.n} seed={wildcards.seed} "
        "policy={wildcards.policy} retrieval={wildcards.retrieval} {params.arm} "
        "control.world=$(dirname {input.world}) input=$(dirname {input.trace}) out=$(dirname {output}) > {log} 2>&1"


rule control_report:
    input:
        [str(r.summary_file(RESULTS)) for r in _CONTROL_RUNS],
        [str(r.audit_file(RESULTS)) for r in _POLICY_RUNS],
    output:
        [report(t, category="Controller study", subcategory="tables") for t in TABLES_CONTROL],
        [report(f, category="Controller study", subcategory="figures") for f in FIGURES_CONTROL],
    params:
        cmd=tm("control_report", "scale", "audit", "llm"),
    log:
        f"{RESULTS}/logs/control_report.log",
    shell:
        "{params.cmd} > {log} 2>&1"
