"""The `fsmem` group checked against the benchmark and harness registries.

A benchmark (`fsmem.benchmarks.BENCHMARKS`) or a harness (`fsmem.harnesses.HARNESSES`) joins by its entry alone
(docs/extending.md), so the names the group's keys accept, the categories a benchmark may be asked and its block in
the open mapping `fsmem.benchmarks` are read from those registries here. They sit above the settings, so this check
runs where the composed config is checked whole (tailmem.validation); the schema (tailmem.settings.fsmem) checks
the rest of the group.
"""

from __future__ import annotations

from tailmem.fsmem.benchmarks import BENCHMARKS, allowed_categories, block_keys
from tailmem.fsmem.harnesses import HARNESSES
from tailmem.settings.checks import Problems


def _node(tree, key: str) -> dict:
    value = tree.get(key) if isinstance(tree, dict) else None
    return value if isinstance(value, dict) else {}


def check(fs: dict) -> list[str]:
    """The problems of a composed `fsmem` node (plain data) that only the registries can tell, one line each."""
    benchmarks, harnesses = list(BENCHMARKS), list(HARNESSES)
    study = _node(fs, "study")
    lines: list[str] = []
    p = Problems("fsmem.realtalk")
    p.names("categories", _node(fs, "realtalk").get("categories"), allowed_categories("realtalk"))
    lines += p.lines
    for part in ("strength", "replicates"):
        node = _node(study, part)
        p = Problems(f"fsmem.study.{part}")
        p.one_of("benchmark", node.get("benchmark"), benchmarks)
        p.one_of("harness", node.get("harness"), harnesses)
        lines += p.lines
    p = Problems("fsmem.study")
    p.names("benchmarks", study.get("benchmarks"), benchmarks)
    p.names("harnesses", study.get("harnesses"), harnesses, null=True)
    p.names("harness_benchmarks", study.get("harness_benchmarks"), benchmarks, empty=True)
    lines += p.lines
    p = Problems("fsmem")
    p.one_of("benchmark", fs.get("benchmark"), benchmarks)
    p.one_of("harness", fs.get("harness"), harnesses)
    p.one_of("build_harness", fs.get("build_harness"), harnesses)
    p.names("categories", fs.get("categories"), allowed_categories("locomo"))
    _check_blocks(p, fs, study, benchmarks)
    return list(dict.fromkeys([*lines, *p.lines]))


def _check_blocks(p: Problems, fs: dict, study: dict, known: list[str]) -> None:
    """Each block belongs to a registered benchmark and lists its categories; a benchmark the run or a study
    names has its block (a missing one would fail only when its job runs)."""
    blocks = fs.get("benchmarks")
    if not isinstance(blocks, dict) or not study:
        return  # unset (MISSING values are Hydra's to refuse)
    for name, block in blocks.items():
        if name not in known:
            p.add(f"fsmem.benchmarks.{name}: not a registered benchmark (tailmem.fsmem.benchmarks: {known})")
        else:
            p.names(f"benchmarks.{name}.categories", _node(blocks, name).get("categories"), allowed_categories(name))
    named = [fs.get("benchmark"), *(study.get("benchmarks") or []), *(study.get("harness_benchmarks") or [])]
    for name in dict.fromkeys(n for n in named if n in known):
        if block_keys(name)[0].startswith("benchmarks.") and name not in blocks:
            p.add(f"fsmem.benchmarks.{name}: no block for benchmark {name!r} (data, conversations, categories)")
