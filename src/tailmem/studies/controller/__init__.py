"""The controller study (paper 1 Tables 4-6, Figures 4, 6 and 7): the design check, one replay per memory arm and
the report with its claims.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import GRAPH_RUN, MEMORY_ARMS, Stage, declare

STAGES = declare(
    Stage(
        "design_check", "tailmem.studies.controller.design_check:run", (*GRAPH_RUN, "control", "llm"), arms=MEMORY_ARMS
    ),
    Stage(
        "design_plan",
        "tailmem.studies.controller.design_check:plan_run",
        (*GRAPH_RUN, "scale", "control", "power", "llm", "stats"),
    ),
    Stage(
        "controller_design_rows",
        "tailmem.studies.controller.design_check:report",
        ("scale", "control", "power", "stats"),  # the study's own groups: another study's setting reruns nothing here
    ),
    Stage("control", "tailmem.studies.controller.control:run", (*GRAPH_RUN, "memory", "control", "llm")),
    Stage("control_report", "tailmem.studies.controller.report:run", ("scale", "audit", "control", "llm", "stats")),
)

PLAN = "tailmem.studies.controller.plan:ControllerPlan"
