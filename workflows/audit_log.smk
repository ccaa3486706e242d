# Tail audits of external memory-access logs (issue 31): one job per entry of `audit_log.logs`
# (configs/audit_log/default.yaml; default: the shipped example logs), each writing
# <results>/audit_log/<name>/{audit.json, audit_log.csv/md, ccdf.png/pdf, trace.npz, events.jsonl}, as
# `python -m tailmem audit-log FILE --format F --name NAME` does.
#   snakemake --cores 2 audit_log
# Self-contained: it reads only CFG, RESULTS, CONDA_ENV, stage_params and log_of from common.smk.
# a relative `file` is relative to the repository (the Snakefile's folder), whatever --directory the run has
AUDIT_LOG_ENTRIES = {str(e["name"]): {**e, "file": os.path.join(workflow.basedir, str(e["file"]))}
                     for e in (CFG.audit_log.logs or [])}
AUDIT_LOG_DIR = f"{RESULTS}/audit_log/{{access_log}}"
AUDIT_LOG_FILES = ["audit.json", "audit_log.csv", "audit_log.md", "ccdf.png", "ccdf.pdf"]
AUDIT_LOG_TARGETS = [f"{RESULTS}/audit_log/{name}/{f}" for name in AUDIT_LOG_ENTRIES for f in AUDIT_LOG_FILES]


def _audit_log_args(wc):
    e = AUDIT_LOG_ENTRIES[wc.access_log]
    return [f"audit_log.file='{e['file']}'", f"audit_log.format={e['format']}", f"audit_log.name={wc.access_log}"]


rule audit_log:
    input:
        AUDIT_LOG_TARGETS,


rule audit_log_one:
    input:
        lambda wc: AUDIT_LOG_ENTRIES[wc.access_log]["file"],
    output:
        [f"{AUDIT_LOG_DIR}/{f}" for f in AUDIT_LOG_FILES],
    wildcard_constraints:
        access_log="[A-Za-z0-9][A-Za-z0-9._-]*",
    params:
        **stage_params("audit_log", _audit_log_args),
    log:
        log_of("audit_log", "access_log"),
    conda:
        CONDA_ENV
    shell:
        "{params.cmd} out=$(dirname {output[0]}) > {log} 2>&1"
