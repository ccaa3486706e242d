"""Code loaded on first use, so a stage's start-up pays only for what it runs.

Every stage validates its whole config before it runs, and the graph-family checks live beside the generators:
without this, every job would import networkx (~0.2 s) to check a key. `lazy("name")` puts a module in `sys.modules`
whose body runs at its first attribute access (the standard library's `importlib.util.LazyLoader`). A later
`import name` elsewhere loads it at once (the import system reads the module's spec), which is what a stage
that uses the module wants; the saving is for the processes that never do.

`resolve("package.module:name")` is the one reader of the "module:name" strings by which the stage registry,
the CLI's commands, the warm server's entry point and the typed settings' readers name code: reading such a table
imports nothing, and the module loads when its entry is used. A string import is still an import:
tests/test_layers.py counts these strings when it looks for import loops.
"""

from __future__ import annotations

import importlib
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


def resolve(target: str):
    """What `target` names: `"package.module:name"` is the module's attribute `name` (the module imported now),
    a bare `"package.module"` the module itself."""
    module, colon, name = target.partition(":")
    if not module or (colon and not name.isidentifier()):
        raise ValueError(f"{target!r}: expected 'package.module:name' or 'package.module'")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if colon else loaded
