"""Modules loaded on first use, so a stage's start-up pays only for what it runs.

Every stage validates its whole config before it runs, and the graph-family checks live beside the generators:
without this, every job would import networkx (~0.2 s) to check a key. `lazy("name")` puts a module in `sys.modules`
whose body runs at its first attribute access (the standard library's `importlib.util.LazyLoader`). A later
`import name` elsewhere loads it at once (the import system reads the module's spec), which is what a stage
that uses the module wants; the saving is for the processes that never do.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy(name: str) -> ModuleType:
    """`name`, imported now if it already is, else loaded when first used."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
