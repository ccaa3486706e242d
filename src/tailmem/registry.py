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


# stage name -> "module:function"; the function takes the composed config (tailmem.stages.typed_stage)
TARGETS: dict[str, str] = {
    "graphworld": "tailmem.stages.graphworld:run",
    "rollout": "tailmem.stages.rollout:run",
    "audit": "tailmem.stages.audit:run",
    "control": "tailmem.stages.control:run",
    "design_check": "tailmem.stages.design_check:run",
    "design_check_report": "tailmem.stages.design_check:report",
    "control_report": "tailmem.stages.control_report:run",
    "tables": "tailmem.stages.tables:run",
    "figures": "tailmem.stages.figures:run",
    "calibration": "tailmem.stages.calibration:run",
    "fsmem_build": "tailmem.stages.locomo:build",
    "fsmem_answer": "tailmem.stages.locomo:answer",
    "fsmem_table": "tailmem.stages.locomo:table",
    "fsmem_table13": "tailmem.stages.fsmem_gold:table13",
    "fsmem_shape": "tailmem.stages.fsmem_study:shape",
    "fsmem_hierarchy": "tailmem.stages.fsmem_study:hierarchy",
    "fsmem_retrieval": "tailmem.stages.fsmem_study:retrieval",
    "fsmem_strength": "tailmem.stages.fsmem_study:strength",
    "fsmem_harness": "tailmem.stages.fsmem_study:harness",
    "fsmem_costs": "tailmem.stages.fsmem_study:costs",
    "fsmem_replicates": "tailmem.stages.fsmem_study:replicates",
    "fsmem_claims": "tailmem.stages.fsmem_claims:run",
    "fsmem_growth": "tailmem.stages.fsmem_growth:run",
    "fsmem_access": "tailmem.stages.fsmem_access:run",
    "fsmem_personamem": "tailmem.stages.personamem:run",
    "longmemeval": "tailmem.stages.longmemeval:run",
    "longmemeval_report": "tailmem.stages.longmemeval:report",
    "judge_sensitivity": "tailmem.stages.judge_sensitivity:run",
    "alfworld_games": "tailmem.stages.alfworld:regenerate_games",
    "alfworld_memory": "tailmem.stages.alfworld:memory",
    "alfworld_skills": "tailmem.stages.alfworld:skills",
    "alfworld_report": "tailmem.stages.alfworld:report",
    "model_roles": "tailmem.stages.model_roles:run",
    "audit_log": "tailmem.stages.audit_log:run",
    "site": "tailmem.stages.site:run",
}

STAGES: dict[str, Stage] = {
    name: Stage(name, target, STAGE_GROUPS[name].groups, STAGE_GROUPS[name].arms) for name, target in TARGETS.items()
}


def stage(name: str) -> Stage:
    from tailmem.errors import ConfigError

    if name not in STAGES:
        raise ConfigError(f"stage={name!r}: unknown stage; expected one of {sorted(STAGES)}")
    return STAGES[name]
