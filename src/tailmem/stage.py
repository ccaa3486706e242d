"""The pipeline's stages: one function per `python -m tailmem <stage>`, dispatched by `tailmem.registry`.

Each stage function is wrapped by `typed_stage(name)`, so it receives `tailmem.settings.stage.StageSettings` (the
typed objects of the groups `tailmem.stage_groups` lists for stage `name`) whether the CLI or a test calls it with a
composed config. The stage names itself rather than being looked up in the registry: the registry names every
stage module, so a stage that read it would import the table that imports the stage.
"""

from __future__ import annotations

import functools

from tailmem.stage_groups import STAGE_GROUPS


def typed_stage(name: str):
    """Give the decorated function the typed settings of stage `name`'s groups instead of a config; `.stage` on
    the wrapper is `name`, so the registry's entry for `name` can be checked to name this function."""
    if name not in STAGE_GROUPS:
        raise LookupError(f"{name} is not a stage in tailmem.stage_groups.STAGE_GROUPS")
    groups = STAGE_GROUPS[name].groups

    def wrap(fn):
        @functools.wraps(fn)
        def run(cfg):
            from tailmem.settings.stage import for_stage

            return fn(for_stage(cfg, name, groups))

        run.stage = name
        return run

    return wrap
