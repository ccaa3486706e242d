"""The calibration study (paper 1 Table 7): the rollout settings searched against the paper's tail targets.

`STAGES` declares each of its stages: the function a rule runs and the config groups its digests cover; `PLAN`
names its share of the DAG (the class its rule files read their inputs from).
"""

from tailmem.stage import Stage, declare

STAGES = declare(
    Stage("calibration", "tailmem.studies.calibration.calibrate:run", ("calibration", "stats", "rollout", "retrieval")),
)

PLAN = "tailmem.studies.calibration.plan:CalibrationPlan"
