"""The judge-sensitivity study: the answers of the filesystem-memory and LongMemEval studies scored again by a panel.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import FSMEM_GROUPS, Stage, declare

STAGES = declare(
    Stage(
        "judge_sensitivity",
        "tailmem.studies.judge_sensitivity.sensitivity:run",
        (*FSMEM_GROUPS, "longmemeval", "stats", "judges"),
    ),
)

PLAN = "tailmem.studies.judge_sensitivity.plan:JudgesPlan"
