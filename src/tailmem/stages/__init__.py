"""The pipeline's stages: one function per `python -m tailmem <stage>`, declared in `tailmem.registry`.

Each stage function is wrapped by `typed_stage`, so it receives `tailmem.settings.stage.StageSettings` (the typed
objects of the groups its registry entry lists) whether the CLI or a test calls it with a composed config.
"""

from __future__ import annotations

import functools


def typed_stage(fn):
    """Give `fn` the typed settings of its registry entry (found by its module and name) instead of a config."""
    target = f"{fn.__module__}:{fn.__name__}"

    @functools.wraps(fn)
    def run(cfg):
        from tailmem.registry import STAGES
        from tailmem.settings.stage import for_stage

        entry = next((s for s in STAGES.values() if s.target == target), None)
        if entry is None:
            raise LookupError(f"{target} is not a stage in tailmem.registry.STAGES")
        return fn(for_stage(cfg, entry.name, entry.groups))

    return run
