# Tail audits of external memory-access logs: one job per entry of `audit_log.logs`
# (configs/audit_log/default.yaml; default: the shipped example logs), each writing
# <results>/audit_log/<name>/{audit.json, audit_log.csv/md, ccdf.png/pdf, trace.npz, events.jsonl}, as
# `python -m tailmem audit-log FILE --format F --name NAME` does.
#   snakemake --cores 2 audit_log
from tailmem.dag import plan_of

AUDIT_LOG = plan_of(config, workflow.basedir, "audit_log")  # audit_log/plan.py


rule audit_log:
    input:
        AUDIT_LOG.targets,


rule audit_log_one:
    input:
        lambda wc: AUDIT_LOG.audit_log_entries[wc.access_log]["file"],
    output:
        [f"{AUDIT_LOG.audit_log_dir}/{f}" for f in AUDIT_LOG.AUDIT_LOG_FILES[1:]],
        audit=f"{AUDIT_LOG.audit_log_dir}/{AUDIT_LOG.AUDIT_LOG_FILES[0]}",
    wildcard_constraints:
        access_log="[A-Za-z0-9][A-Za-z0-9._-]*",
    params:
        **AUDIT_LOG.stage_params("audit_log", AUDIT_LOG.audit_log_args),
    log:
        AUDIT_LOG.log_of("audit_log", "access_log"),
    conda:
        AUDIT_LOG.conda_env
    shell:
        "{params.cmd} out=$(dirname {output.audit}) > {log} 2>&1"
