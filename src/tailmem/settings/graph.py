"""The `graph` group: an open mapping `family`, `n` and the family's own keys, checked against the family registry.

Why not one dataclass: each family names its keys in `graphworld.families.FAMILIES` (with its checks), and the DAG
composes one config whose `graph.<key>` overrides reach every family that has the key (`graph.degree=6` changes
uniform and mixed worlds, not scale-free ones). A dataclass with every family's keys would be a third file to edit
for a new family and would put other families' nulls into every world's config digest. So the family's registry
entry is the schema: an unknown key, a key of another family (at a stage, where the family is known) and a bad value
fail with the family's own message. That check reads the registry, which sits above the settings, so it lives beside
the registry (tailmem.graphworld.group) and runs where the composed config is checked whole (tailmem.validation).

Here is what needs no registry: the smallest world any family is drawn at (`MIN_STATES`, which the `scale` group's
sizes are checked against and `graphworld.families` reads) and the line that names an unknown key.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

MIN_STATES = 10  # below this a "world" has too few states for any tail statistic


def unknown(key: str, candidates: Sequence[str]) -> str:
    """The error line of a key no config group defines, with the closest existing key."""
    close = difflib.get_close_matches(key, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"{key}: unknown key" + (f"; did you mean {close[0]}?" if close else "")
