"""The stage registry: every study's stages (the function each `python -m tailmem <stage>` runs, beside the config
groups it reads), gathered from the studies' packages.

The CLI dispatches from it, and the Snakemake rules build their commands and rerun digests from it. A study's
package declares its `STAGES` without importing a stage module, so importing the registry runs no stage code.
"""

from __future__ import annotations

from tailmem import design_table, site_stage
from tailmem.stage import Stage
from tailmem.studies import (
    alfworld,
    audit_log,
    calibration,
    controller,
    fsmem,
    judge_sensitivity,
    longmemeval,
    model_roles,
    random_walk,
)

# Every study, in the order the DAG runs them: a new study is its folder plus its name here and its rule files'
# `include:` in the Snakefile.
STUDIES = (
    random_walk,
    controller,
    calibration,
    fsmem,
    longmemeval,
    judge_sensitivity,
    alfworld,
    model_roles,
    audit_log,
)

# every study's stages, then the two above the studies: the design check's table (tailmem.design_table) and the
# site (tailmem.site_stage)
STAGES: dict[str, Stage] = {
    name: s for study in (*STUDIES, design_table, site_stage) for name, s in study.STAGES.items()
}


def stage(name: str) -> Stage:
    from tailmem.errors import ConfigError

    if name not in STAGES:
        raise ConfigError(f"stage={name!r}: unknown stage; expected one of {sorted(STAGES)}")
    return STAGES[name]
