"""The filesystem-memory study (paper 2): stores built and searched on LoCoMo, the study's tables (shape, hierarchy,
retrieval, strength, harness, costs, replicates, growth, access) and PersonaMem.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import FSMEM_GROUPS, Stage, declare

_TABLES = "tailmem.studies.fsmem.report"
STAGES = declare(
    Stage("fsmem_build", "tailmem.studies.fsmem.locomo:build", FSMEM_GROUPS),
    Stage("fsmem_answer", "tailmem.studies.fsmem.locomo:answer", FSMEM_GROUPS),
    Stage("fsmem_table", "tailmem.studies.fsmem.locomo:table", ("fsmem",)),
    Stage("fsmem_table13", "tailmem.studies.fsmem.gold:table13", ("fsmem",)),  # paper 2 Table 13
    Stage("fsmem_shape", f"{_TABLES}:shape", FSMEM_GROUPS),
    Stage("fsmem_hierarchy", f"{_TABLES}:hierarchy", FSMEM_GROUPS),
    Stage("fsmem_retrieval", f"{_TABLES}:retrieval", FSMEM_GROUPS),
    Stage("fsmem_strength", f"{_TABLES}:strength", FSMEM_GROUPS),
    Stage("fsmem_harness", f"{_TABLES}:harness", FSMEM_GROUPS),
    Stage("fsmem_costs", f"{_TABLES}:costs", FSMEM_GROUPS),
    Stage("fsmem_replicates", f"{_TABLES}:replicates", FSMEM_GROUPS),
    Stage("fsmem_design_rows", "tailmem.studies.fsmem.design_rows:run", ("fsmem", "power", "stats")),
    Stage("fsmem_claims", "tailmem.studies.fsmem.claims_stage:run", (*FSMEM_GROUPS, "stats", "judges", "power")),
    Stage("fsmem_growth", "tailmem.studies.fsmem.growth:run", FSMEM_GROUPS),
    Stage("fsmem_access", "tailmem.studies.fsmem.access:run", (*FSMEM_GROUPS, "audit", "seed")),
    Stage("fsmem_personamem", "tailmem.studies.fsmem.personamem:run", FSMEM_GROUPS),
)

PLAN = "tailmem.studies.fsmem.plan:FsmemPlan"
