"""Every script in benchmarks/ imports against the current library.

Why: the benchmarks are not run by the suite (they time things), so a rename in the library can leave one with a
dead import that only a reader finds (stop 53: `bench_concentration_verdict.py` imported a module that had moved,
and CI's ruff caught it only through the import order). Importing each script runs its top level, not its main.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("*.py"))


def test_there_are_benchmarks():
    assert len(BENCHMARKS) >= 10


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_script_imports(path, monkeypatch):
    name = f"_bench_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    assert module.__doc__, f"{path.name} has no docstring saying what it measures"


def test_the_llm_benchmark_builds_configs_the_llm_group_accepts(tmp_path, monkeypatch):
    """bench_llm.py's instruct and local sections built a partial `llm` node, which the group's checks refuse
    (`llm.roles.searcher.base_url: no value`): the benchmark died before timing anything."""
    from tailmem.llm.group import settings

    path = next(p for p in BENCHMARKS if p.name == "bench_llm.py")
    spec = importlib.util.spec_from_file_location("_bench_llm_cfg", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "_bench_llm_cfg", module)
    spec.loader.exec_module(module)
    for role in ("searcher", "judge"):
        group = settings(module.instruct_config(str(tmp_path), role))
        assert group.roles[role].backend == "instruct"
