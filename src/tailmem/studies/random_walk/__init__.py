"""The random-walk study (paper 1 Tables 2-3, 8, Figures 3 and 5): graph worlds, rollouts and their tail audits,
and the tables and figures over them. The controller study replays the same worlds' trajectories.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import GRAPH_RUN, POLICY_GROUP, Stage, declare

STAGES = declare(
    Stage("graphworld", "tailmem.studies.random_walk.graphworld:run", ("graph", "seed")),
    Stage(
        "rollout",
        "tailmem.studies.random_walk.rollout:run",
        ("graph", "seed", "rollout", POLICY_GROUP, "retrieval", "llm"),
    ),
    Stage("audit", "tailmem.studies.random_walk.audit:run", (*GRAPH_RUN, "audit")),
    Stage("tables", "tailmem.studies.random_walk.report:run", ("scale", "audit", "rollout", "llm", "stats", "power")),
    Stage(
        "random_walk_design_rows", "tailmem.studies.random_walk.design_rows:run", ("scale", "rollout", "power", "stats")
    ),
    Stage("figures", "tailmem.studies.random_walk.plot:run", ("scale", "audit", "rollout", "llm")),
)

PLAN = "tailmem.studies.random_walk.plan:RandomWalkPlan"
