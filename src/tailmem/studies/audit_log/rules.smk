# Tail audits of external memory-access logs: one job per entry of `audit_log.logs`
# (configs/audit_log/default.yaml; default: the shipped example logs), each writing
# <results>/audit_log/<name>/{audit.json, audit_log.csv/md, ccdf.png/pdf, trace.npz, events.jsonl}, as
# `python -m tailmem audit-log FILE --format F --name NAME` does.
#   snakemake --cores 2 audit_log
from tailmem.dag import dag_of

TAILMEM = dag_of(config, workflow.basedir)


rule audit_log:
    input:
        TAILMEM.audit_log_targets,


rule audit_log_one:
    input:
        lambda wc: TAILMEM.audit_log_entries[wc.access_log]["file"],
    output:
        [f"{TAILMEM.audit_log_dir}/{f}" for f in TAILMEM.AUDIT_LOG_FILES[1:]],
        audit=f"{TAILMEM.audit_log_dir}/{TAILMEM.AUDIT_LOG_FILES[0]}",
    wildcard_constraints:
        access_log="[A-Za-z0-9][A-Za-z0-9._-]*",
    params:
        **TAILMEM.stage_params("audit_log", TAILMEM.audit_log_args),
    log:
        TAILMEM.log_of("audit_log", "access_log"),
    conda:
        TAILMEM.conda_env
    shell:
        "{params.cmd} out=$(dirname {output.audit}) > {log} 2>&1"
