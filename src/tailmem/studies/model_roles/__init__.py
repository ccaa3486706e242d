"""How the model played each role in a model slice: probe figures per role and every claims row beside the roles it
rests on.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import Stage, declare

STAGES = declare(
    Stage("model_roles", "tailmem.studies.model_roles.probe:run", ("scale", "fsmem", "control", "llm", "model_roles")),
    Stage("policy_probe", "tailmem.studies.model_roles.probe:run_policy_probe", ("scale", "llm", "model_roles")),
)

# its rules (role_probe, which reads every study's products, and policy_probe, which reads none and so runs beside
# the other model jobs instead of after them) sit in the Snakefile
PLAN = None
