"""The ALFWorld study (paper 1's ALFWorld rows, paper 2's skill setting): games, memory arms, skill chains, report.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import ALFWORLD_GROUPS, MEMORY_ARMS, Stage, declare

# the episodes' controllers draw from `seed` (make_controller), so `seed` is in their digest
STAGES = declare(
    Stage("alfworld_games", "tailmem.studies.alfworld.games:regenerate_games", ALFWORLD_GROUPS),
    Stage("alfworld_memory", "tailmem.studies.alfworld.episodes:memory", (*ALFWORLD_GROUPS, "seed"), arms=MEMORY_ARMS),
    Stage("alfworld_skills", "tailmem.studies.alfworld.episodes:skills", (*ALFWORLD_GROUPS, "seed"), arms=MEMORY_ARMS),
    Stage("alfworld_design_rows", "tailmem.studies.alfworld.design_rows:run", ("alfworld", "power", "stats")),
    Stage(
        "alfworld_report", "tailmem.studies.alfworld.report:report", (*ALFWORLD_GROUPS, "stats", "power")
    ),  # its intervals: stats
)

PLAN = "tailmem.studies.alfworld.plan:AlfworldPlan"
