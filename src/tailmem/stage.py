"""The entry of every stage function: `typed_stage(name)` gives it the typed settings of its config groups.

Each stage function is wrapped under its name, so it receives `tailmem.settings.stage.StageSettings` (the typed
objects of the groups its `Stage` record lists) whether the CLI or a test calls it with a composed config. The
record comes from `tailmem.stage_groups.DECLARED`, where the study's package entered it when Python imported the
package ahead of the stage module; the stage imports neither the package that names it nor the registry.
"""

from __future__ import annotations

import functools

from tailmem.stage_groups import DECLARED


def typed_stage(name: str):
    """Give the decorated function the typed settings of stage `name`'s groups instead of a config; `.stage` on
    the wrapper is `name`, so the registry's entry can be checked to name this function."""
    entry = DECLARED.get(name)
    if entry is None:
        raise LookupError(f"{name} is not declared by a study's STAGES (tailmem.stage_groups.declare)")

    def wrap(fn):
        @functools.wraps(fn)
        def run(cfg):
            from tailmem.settings.stage import for_stage

            return fn(for_stage(cfg, entry.name, entry.groups, entry.arms))

        run.stage = name
        return run

    return wrap
