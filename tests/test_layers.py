"""The layers are checked: import-linter's contracts (pyproject.toml) hold on this tree, a planted violation breaks
them, and every top-level module of the package is placed on one side of the pipeline/library line."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "tailmem"


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _lint_imports(src: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the package under `src` (its own process: grimp reads the files, not this interpreter's
    modules), with this repository's contracts and no cache."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cli = Path(sys.executable).with_name("lint-imports")
    return subprocess.run(
        [str(cli), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_import_contracts_hold():
    run = _lint_imports(REPO / "src")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in run.stdout


def test_a_library_module_importing_a_stage_breaks_the_contract(tmp_path):
    """The check can fail: a memory module that imports a stage is reported, with the line that does it."""
    shutil.copytree(PACKAGE, tmp_path / "tailmem", ignore=shutil.ignore_patterns("__pycache__"))
    planted = '"""Planted."""\n\nfrom tailmem.studies.random_walk import audit\n'
    (tmp_path / "tailmem" / "memory" / "planted.py").write_text(planted)
    run = _lint_imports(tmp_path)
    assert run.returncode != 0
    assert "The library never imports a study, the stage kit or the pipeline BROKEN" in run.stdout
    assert "tailmem.memory.planted -> tailmem.studies.random_walk.audit (l.3)" in run.stdout


def test_a_study_importing_another_study_breaks_the_contract(tmp_path):
    """The check can fail: the controller study reaching into the filesystem-memory study is reported."""
    shutil.copytree(PACKAGE, tmp_path / "tailmem", ignore=shutil.ignore_patterns("__pycache__"))
    planted = '"""Planted."""\n\nfrom tailmem.studies.fsmem import locomo\n'
    (tmp_path / "tailmem" / "studies" / "controller" / "planted.py").write_text(planted)
    run = _lint_imports(tmp_path)
    assert run.returncode != 0
    assert "No study imports another study BROKEN" in run.stdout
    assert "tailmem.studies.controller.planted -> tailmem.studies.fsmem.locomo" in run.stdout


def _top_level_modules() -> set[str]:
    names = {f"tailmem.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    return names | {f"tailmem.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_every_module_is_placed_in_the_library_or_the_pipeline():
    """A new module or package names its layer in pyproject.toml, so it cannot sit outside the contract."""
    layers = _contracts()["library-below-pipeline"]
    library, pipeline = set(layers["source_modules"]), set(layers["forbidden_modules"])
    assert not library & pipeline
    assert _top_level_modules() == library | pipeline


def test_no_import_is_excused():
    """The layer contract holds without exceptions: an import across the line is fixed, not ignored."""
    assert not _contracts()["library-below-pipeline"].get("ignore_imports")


# -- the Snakemake files name their inputs through tailmem.dag, not through each other's globals ----------------
WORKFLOW_FILES = [
    REPO / "Snakefile",
    *sorted((REPO / "workflows").glob("*.smk")),
    *sorted((PACKAGE / "studies").glob("*/*.smk")),
]
# What Snakemake itself puts in a Snakefile's namespace (besides Python's builtins).
SNAKEMAKE_GLOBALS = {
    "workflow",
    "config",
    "rules",
    "checkpoints",
    "expand",
    "report",
    "unpack",
    "shell",
    "ancient",
    "temp",
    "protected",
    "directory",
    "touch",
    "glob_wildcards",
    "multiext",
    "storage",
    "lookup",
}


def _as_python(path: Path):
    """The Python Snakemake compiles `path` to (its own parser), as a syntax tree."""
    import ast
    import types

    from snakemake.parser import parse

    class Source:
        def get_path_or_uri(self, secret_free=True):
            return str(path)

    workflow = types.SimpleNamespace(sourcecache=types.SimpleNamespace(open=lambda source: open(path)))
    return ast.parse(parse(Source(), workflow, {})[0])


def _names(tree) -> tuple[set[str], set[str]]:
    """(names bound anywhere in the file, names read), both as plain identifiers."""
    import ast

    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound, read


def _rules(tree) -> tuple[set[str], set[str]]:
    """(rules the file defines, or the prefixes of the rules it takes from a module; `rules.X` it reads)."""
    import ast

    defined, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            for kw in node.keywords:
                if node.func.attr == "rule" and kw.arg == "name" and isinstance(kw.value, ast.Constant):
                    defined.add(kw.value.value)
                if node.func.attr == "userule" and kw.arg == "name_modifier" and isinstance(kw.value, ast.Constant):
                    defined.add(kw.value.value.rstrip("*"))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "rules":
            read.add(node.attr)
    return defined, read


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_a_workflow_file_uses_no_name_another_file_defines(path):
    """Every name a rule file reads is bound in that file (mostly its study's plan and its imports), a
    builtin or Snakemake's; every `rules.X` is its own rule: so no file depends on another one included first."""
    import builtins

    tree = _as_python(path)
    bound, read = _names(tree)
    foreign = read - bound - set(dir(builtins)) - SNAKEMAKE_GLOBALS
    assert not foreign, f"{path.name} reads {sorted(foreign)}, defined in another file: name them through its plan"
    defined, rules_read = _rules(tree)
    other = {r for r in rules_read if r not in defined and not any(r.startswith(p) for p in defined if p.endswith("_"))}
    assert not other, f"{path.name} reads rules.{sorted(other)} of another file: name the file through tailmem.dag"


STUDY_RULE_FILES = sorted((PACKAGE / "studies").glob("*/*.smk"))


@pytest.mark.parametrize("path", STUDY_RULE_FILES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_study_rule_file_reads_its_own_plan_only(path):
    """A study's rules name their inputs through their own study's plan: `plan_of(..., "<its folder>")` and
    nothing of tailmem.dag besides, so a rule reads alone beside its study's plan.py."""
    text = path.read_text()
    plans = re.findall(r'plan_of\(config, workflow\.basedir, "(\w+)"\)', text)
    assert plans == [path.parent.name], (path.name, plans)
    assert "dag_of" not in text


def test_the_check_sees_a_name_from_another_file(tmp_path):
    """The check can fail: before this design, audit.smk read common.smk's `stage_params` and rollout.smk's rule."""
    smk = tmp_path / "audit.smk"
    smk.write_text(
        "rule audit:\n    input:\n        rules.rollout.output[0],\n    params:\n"
        '        **stage_params("audit"),\n    shell:\n        "true"\n'
    )
    bound, read = _names(_as_python(smk))
    assert "stage_params" in read - bound
    assert _rules(_as_python(smk)) == ({"audit"}, {"rollout"})


def _import_graph():
    """Every `tailmem` module and the modules it imports, those inside functions too (grimp, import-linter's own
    graph), as a networkx DiGraph."""
    import grimp
    import networkx as nx

    graph = grimp.build_graph("tailmem")
    edges = nx.DiGraph()
    edges.add_nodes_from(graph.modules)
    edges.add_edges_from((m, d) for m in graph.modules for d in graph.find_modules_directly_imported_by(m))
    return edges


def test_the_package_has_no_import_cycle():
    """No two modules import each other, directly or through others. Every import statement counts, those inside
    functions too, so a cycle cannot hide behind a deferred import."""
    import networkx as nx

    cycles = [sorted(c) for c in nx.strongly_connected_components(_import_graph()) if len(c) > 1]
    assert cycles == []


# -- imports by name: a module named in a string is imported all the same ----------------------------------------
# "tailmem.x.y:attribute": a registry entry or a resolver's target (tailmem.lazy.resolve), whatever reads it.
TARGET = re.compile(r"^(tailmem(?:\.\w+)*):[\w.]+$")
# Calls that import the module their first argument names: `importlib.import_module("tailmem.x")`, `lazy(...)`.
IMPORTERS = {"import_module", "lazy", "resolve"}


def _module_file(name: str) -> Path:
    base = PACKAGE.parent.joinpath(*name.split("."))
    return base / "__init__.py" if (base / "__init__.py").is_file() else base.with_suffix(".py")


def _named(source: str, modules: set[str]) -> set[str]:
    """The modules of `modules` that `source` imports by name: a "tailmem.x:f" string (a registry entry, a
    resolver's target), or a module name given to `importlib.import_module`, `lazy` or `resolve`. grimp (like
    Python) reads import statements only, so a loop these close is invisible to it. A module name in other strings
    (a logger's, a file to digest) imports nothing."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.match(node.value):
            out.add(TARGET.match(node.value).group(1))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in IMPORTERS and isinstance(node.args[0].value, str):
                out.add(node.args[0].value.split(":")[0])
    return out & modules


def _with_named_imports(edges):
    """`edges` plus an edge for every module a module names in a string (see `_named`), tagged `named=True`."""
    edges = edges.copy()
    modules = set(edges.nodes)
    for module in modules:
        for target in _named(_module_file(module).read_text(), modules) - {module}:
            if not edges.has_edge(module, target):
                edges.add_edge(module, target, named=True)
    return edges


def _loops(edges) -> list[str]:
    """Each loop, as the shortest chain of modules that closes it (`=>` marking a module named in a string): per
    named import inside a strongly connected set of modules, the loop through it; else one loop of the set."""
    import networkx as nx

    def chain(a: str, b: str) -> str:
        path = [a, *nx.shortest_path(sub, b, a)]
        arrows = [" => " if sub.edges[x, y].get("named") else " -> " for x, y in zip(path, path[1:])]
        return path[0] + "".join(arrow + y for arrow, y in zip(arrows, path[1:]))

    out = []
    for component in nx.strongly_connected_components(edges):
        if len(component) < 2:
            continue
        sub = edges.subgraph(component)
        named = [(a, b) for a, b, n in sub.edges(data="named") if n]
        out += [chain(a, b) for a, b in named] or [chain(*next(iter(sub.edges)))]
    return sorted(out)


def _is_library(module: str) -> bool:
    layers = _contracts()["library-below-pipeline"]
    return any(module == m or module.startswith(m + ".") for m in layers["source_modules"])


def test_the_library_has_no_import_loop_through_a_module_named_in_a_string():
    """Counting every module named in a string as imported (`=>`), the library still has no loop: a settings
    module that reads a registry by name, or a folder that registers the schema by name, cannot close one."""
    edges = _with_named_imports(_import_graph())
    loops = _loops(edges.subgraph(m for m in edges.nodes if _is_library(m)))
    assert not loops, "\n".join(loops)


def test_no_library_module_names_a_pipeline_module():
    """A string import crosses the layer line unseen by import-linter: the library names no pipeline module."""
    edges = _with_named_imports(_import_graph())
    crossing = sorted(
        f"{a} => {b}" for a, b, named in edges.edges(data="named") if named and _is_library(a) and not _is_library(b)
    )
    assert crossing == []


def test_the_package_has_no_import_loop_through_a_module_named_in_a_string():
    """The whole package, every module named in a string counted as imported: a dispatch table (the registry's
    stage targets, the CLI's commands) names entry modules, which import only what lies below the table."""
    loops = _loops(_with_named_imports(_import_graph()))
    assert not loops, "\n".join(loops)


def test_the_check_sees_a_module_named_in_a_string():
    """The check can fail: each way of naming a module by string is an import."""
    source = (
        "import importlib\n"
        "from tailmem.lazy import resolve\n"
        "def f():\n"
        "    importlib.import_module('tailmem.a')\n"
        "    resolve('tailmem.b:run')()\n"
        "nx = lazy('tailmem.c')\n"
        "STAGE = 'tailmem.d.e:run'\n"
        "log = logging.getLogger('tailmem.f')\n"
        "PROSE = 'tailmem.f:run reads tailmem.f'\n"
    )
    modules = {f"tailmem.{m}" for m in ("a", "b", "c", "d.e", "f", "lazy")}
    assert _named(source, modules) == {"tailmem.a", "tailmem.b", "tailmem.c", "tailmem.d.e"}
