"""The `graph` group checked against the family registry, and the `scale` group's families.

The graph group is an open mapping (tailmem.settings.graph says why): `family`, `n` and the keys the family's entry
in `FAMILIES` names, each range checked by the family's own check. The names of the families a `scale` draws its
worlds from are checked here too, against the same registry, so a family added to `FAMILIES` (docs/extending.md) is
accepted everywhere at once. The registry sits above the settings, so these checks run where the composed config is
checked whole (tailmem.validation), before any job.
"""

from __future__ import annotations

from collections.abc import Sequence

from tailmem.graphworld.families import FAMILIES, check_graph_config
from tailmem.settings.checks import Problems, error_lines
from tailmem.settings.graph import unknown


def known_keys() -> list[str]:
    return sorted({"family", "n"} | {k for f in FAMILIES.values() for k in f.keys})


def check(graph: dict, stage: bool) -> list[str]:
    """The problems of a composed `graph` node; `stage`: a stage's config (its family is the one it builds)."""
    keys = known_keys()
    errors = [unknown(f"graph.{k}", [f"graph.{n}" for n in keys]) for k in graph if k not in keys]
    family = graph.get("family")
    if stage and family in FAMILIES:
        own = ["family", "n", *FAMILIES[family].keys]
        for key in sorted(set(graph) - set(own) - (set(graph) - set(keys))):
            owners = [name for name, f in FAMILIES.items() if key in f.keys]
            errors.append(
                f"graph.{key}: not a key of graph family {family!r} (its keys: "
                f"{', '.join('graph.' + k for k in own)}); it is a key of {', '.join(owners)}"
            )
    return errors or error_lines(lambda: check_graph_config(graph))


def check_dag(graph: dict, scale, overrides: Sequence[str], option) -> list[str]:
    """The DAG builds a world per family x size of the scale: each family's option (`option(family)`, the keys of
    configs/graph/<family>.yaml) with the `graph.<key>` overrides of that family's keys, checked for every size."""
    errors = [line for line in check(graph, stage=False) if "unknown key" in line]
    if errors:
        return errors
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
        params.update({k: graph[k] for k in FAMILIES[family].keys if k in changed and k in graph})
        lines = error_lines(lambda p=params: check_graph_config(p))
        if lines:
            failed.add(family)
            errors += [f"{line} [graph family {family} from {fkey}, graph.n={n} from {nkey}]" for line in lines]
    return errors


def scale_problems(scale: dict) -> list[str]:
    """The problems of the families a composed `scale` node names (`scale.families`, `scale.retrieval_families`,
    `scale.control.families`): each a non-empty list of registered families. Their sizes are the schema's
    (tailmem.settings.scale, at least `MIN_STATES`)."""
    names = list(FAMILIES)
    p = Problems("scale.control")
    control = scale.get("control")
    if isinstance(control, dict):
        p.names("families", control.get("families"), names)
    lines = p.lines
    p = Problems("scale")
    for key in ("families", "retrieval_families"):
        p.names(key, scale.get(key), names)
    return list(dict.fromkeys([*lines, *p.lines]))
