"""The `graph` group: an open mapping `family`, `n` and the family's own keys, checked against the family registry.

Why not one dataclass: each family names its keys in `graphworld.families.FAMILIES` (with its checks), and the DAG
composes one config whose `graph.<key>` overrides reach every family that has the key (`graph.degree=6` changes
uniform and mixed worlds, not scale-free ones). A dataclass with every family's keys would be a third file to edit
for a new family and would put other families' nulls into every world's config digest. So the family's registry
entry is the schema: an unknown key, a key of another family (at a stage, where the family is known) and a bad value
fail here with the family's own message.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence


def _families():
    from tailmem.graphworld.families import FAMILIES

    return FAMILIES


def known_keys() -> list[str]:
    return sorted({"family", "n"} | {k for f in _families().values() for k in f.keys})


def unknown(key: str, candidates: Sequence[str]) -> str:
    """The error line of a key no config group defines, with the closest existing key."""
    close = difflib.get_close_matches(key, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"{key}: unknown key" + (f"; did you mean {close[0]}?" if close else "")


def _lines(call) -> list[str]:
    from tailmem.errors import ConfigError

    try:
        call()
    except ConfigError as exc:
        return str(exc).splitlines()
    return []


def check(graph: dict, stage: bool) -> list[str]:
    """The problems of a composed `graph` node; `stage`: a stage's config (its family is the one it builds)."""
    from tailmem.graphworld.families import check_graph_config

    families = _families()
    keys = known_keys()
    errors = [unknown(f"graph.{k}", [f"graph.{n}" for n in keys]) for k in graph if k not in keys]
    family = graph.get("family")
    if stage and family in families:
        own = ["family", "n", *families[family].keys]
        for key in sorted(set(graph) - set(own) - (set(graph) - set(keys))):
            owners = [name for name, f in families.items() if key in f.keys]
            errors.append(
                f"graph.{key}: not a key of graph family {family!r} (its keys: "
                f"{', '.join('graph.' + k for k in own)}); it is a key of {', '.join(owners)}"
            )
    return errors or _lines(lambda: check_graph_config(graph))


def check_dag(graph: dict, scale, overrides: Sequence[str], option) -> list[str]:
    """The DAG builds a world per family x size of the scale: each family's option (`option(family)`, the keys of
    configs/graph/<family>.yaml) with the `graph.<key>` overrides of that family's keys, checked for every size."""
    from tailmem.graphworld.families import check_graph_config

    errors = [line for line in check(graph, stage=False) if "unknown key" in line]
    if errors:
        return errors
    families = _families()
    changed = {o.lstrip("+~").split("=", 1)[0].strip() for o in overrides}
    changed = {k.split(".", 1)[1] for k in changed if k.startswith("graph.")}
    grid = [("scale.families", f, "scale.sizes", n) for f in scale.families for n in scale.sizes]
    grid += [
        ("scale.retrieval_families", f, "scale.retrieval_size", scale.retrieval_size) for f in scale.retrieval_families
    ]
    grid += [("scale.control.families", f, "scale.control.size", scale.control.size) for f in scale.control.families]
    if scale.control.contrast_size is not None:  # the tail contrast's own worlds (graph_runs.contrast_worlds)
        size = scale.control.contrast_size
        grid += [("scale.families", f, "scale.control.contrast_size", size) for f in scale.families]
    failed: set[str] = set()
    for fkey, family, nkey, n in grid:
        if family in failed:
            continue  # one line per family: its first failing size
        params = {**option(family), "family": family, "n": n}
        params.update({k: graph[k] for k in families[family].keys if k in changed and k in graph})
        lines = _lines(lambda p=params: check_graph_config(p))
        if lines:
            failed.add(family)
            errors += [f"{line} [graph family {family} from {fkey}, graph.n={n} from {nkey}]" for line in lines]
    return errors
