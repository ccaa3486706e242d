"""The stage registry: the function each `python -m tailmem <stage>` runs, beside the config groups it reads.

The CLI dispatches from it, and the Snakemake rules build their commands and rerun digests from it. A stage's
groups and the digests over them live in `tailmem.stage_groups`, which the stages and provenance read: the targets
below name the stage modules, so a module a stage imports cannot hold them.
"""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.lazy import resolve
from tailmem.stage_groups import STAGE_GROUPS


@dataclass(frozen=True)
class Stage:
    """One `python -m tailmem <name>` stage: `target` is "module:function"; `groups` and `arms` its entry in
    `tailmem.stage_groups.STAGE_GROUPS`."""

    name: str
    target: str
    groups: tuple[str, ...]
    arms: str | None = None

    @property
    def module(self) -> str:
        return self.target.split(":")[0]

    def function(self):
        return resolve(self.target)


# stage name -> "module:function"; the function takes the composed config (tailmem.stage.typed_stage)
TARGETS: dict[str, str] = {
    "graphworld": "tailmem.studies.random_walk.graphworld:run",
    "rollout": "tailmem.studies.random_walk.rollout:run",
    "audit": "tailmem.studies.random_walk.audit:run",
    "control": "tailmem.studies.controller.control:run",
    "design_check": "tailmem.studies.controller.design_check:run",
    "design_check_report": "tailmem.studies.controller.design_check:report",
    "control_report": "tailmem.studies.controller.report:run",
    "tables": "tailmem.studies.random_walk.report:run",
    "figures": "tailmem.studies.random_walk.plot:run",
    "calibration": "tailmem.studies.calibration.calibrate:run",
    "fsmem_build": "tailmem.studies.fsmem.locomo:build",
    "fsmem_answer": "tailmem.studies.fsmem.locomo:answer",
    "fsmem_table": "tailmem.studies.fsmem.locomo:table",
    "fsmem_table13": "tailmem.studies.fsmem.gold:table13",
    "fsmem_shape": "tailmem.studies.fsmem.study_tables:shape",
    "fsmem_hierarchy": "tailmem.studies.fsmem.study_tables:hierarchy",
    "fsmem_retrieval": "tailmem.studies.fsmem.study_tables:retrieval",
    "fsmem_strength": "tailmem.studies.fsmem.study_tables:strength",
    "fsmem_harness": "tailmem.studies.fsmem.study_tables:harness",
    "fsmem_costs": "tailmem.studies.fsmem.study_tables:costs",
    "fsmem_replicates": "tailmem.studies.fsmem.study_tables:replicates",
    "fsmem_claims": "tailmem.studies.fsmem.claims_stage:run",
    "fsmem_growth": "tailmem.studies.fsmem.growth:run",
    "fsmem_access": "tailmem.studies.fsmem.access:run",
    "fsmem_personamem": "tailmem.studies.fsmem.personamem:run",
    "longmemeval": "tailmem.studies.longmemeval.stages:run",
    "longmemeval_report": "tailmem.studies.longmemeval.stages:report",
    "judge_sensitivity": "tailmem.studies.judges.sensitivity:run",
    "alfworld_games": "tailmem.studies.alfworld.stages:regenerate_games",
    "alfworld_memory": "tailmem.studies.alfworld.stages:memory",
    "alfworld_skills": "tailmem.studies.alfworld.stages:skills",
    "alfworld_report": "tailmem.studies.alfworld.stages:report",
    "model_roles": "tailmem.studies.model_roles.probe:run",
    "audit_log": "tailmem.studies.audit_log.stage:run",
    "site": "tailmem.site_stage:run",
}

STAGES: dict[str, Stage] = {
    name: Stage(name, target, STAGE_GROUPS[name].groups, STAGE_GROUPS[name].arms) for name, target in TARGETS.items()
}


def stage(name: str) -> Stage:
    from tailmem.errors import ConfigError

    if name not in STAGES:
        raise ConfigError(f"stage={name!r}: unknown stage; expected one of {sorted(STAGES)}")
    return STAGES[name]
