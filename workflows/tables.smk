# Stage 5: tables and figures. Targets reachable by name: `snakemake tables_random_walk figures_random_walk`.
from tailmem.report import targets

_RW_RUNS = targets.random_walk_runs(CFG)
_RW_LARGEST = targets.largest_size_runs(CFG)
TABLES_RANDOM_WALK = [
    f"{RESULTS}/tables/{stem}.{ext}" for stem in targets.RANDOM_WALK_TABLES for ext in ("csv", "md")
]
FIGURES_RANDOM_WALK = [f"{FIGURES}/{stem}.{ext}" for stem in targets.RANDOM_WALK_FIGURES for ext in ("png", "pdf")]


rule tables_random_walk:
    input:
        [str(r.audit_file(RESULTS)) for r in _RW_RUNS],
    output:
        [report(t, category="Random walk", subcategory="tables") for t in TABLES_RANDOM_WALK],
    params:
        cmd=tm("tables", "scale", "audit", "rollout"),
    log:
        f"{RESULTS}/logs/tables_random_walk.log",
    shell:
        "{params.cmd} out={RESULTS}/tables > {log} 2>&1"


rule figures_random_walk:
    input:
        [str(r.audit_file(RESULTS)) for r in _RW_LARGEST],
        [str(r.trace_file(RESULTS)) for r in _RW_LARGEST],
    output:
        [report(f, category="Random walk", subcategory="figures") for f in FIGURES_RANDOM_WALK],
    params:
        cmd=tm("figures", "scale", "audit"),
    log:
        f"{RESULTS}/logs/figures_random_walk.log",
    shell:
        "{params.cmd} out={FIGURES} > {log} 2>&1"
