"""The external access-log audit: a tail audit of a log another system wrote (JSONL, inspect-ai, mem0).

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import Stage, declare

STAGES = declare(
    Stage("audit_log", "tailmem.studies.audit_log.audit:run", ("audit_log", "audit", "seed")),  # external logs
)

PLAN = "tailmem.studies.audit_log.plan:AuditLogPlan"
