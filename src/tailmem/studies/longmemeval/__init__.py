"""The LongMemEval study (paper 1 Table 8 and Figure 8): memory arms answering over the haystacks, and the report.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import Stage, declare

STAGES = declare(
    Stage(
        "longmemeval",
        "tailmem.studies.longmemeval.run:run",
        ("longmemeval", "seed", "llm"),
        arms="tailmem.haystack.arms:arm_payload",
    ),
    Stage("longmemeval_design_rows", "tailmem.studies.longmemeval.design_rows:run", ("longmemeval", "power", "stats")),
    Stage(
        "longmemeval_report", "tailmem.studies.longmemeval.report:report", ("longmemeval", "stats", "judges", "power")
    ),
)

PLAN = "tailmem.studies.longmemeval.plan:LongMemEvalPlan"
