"""Issue 30, "paths and names repeat": the rule that `out=` overrides a stage's folder is written once
(`paths.out_dir`), and the main harness's name is spelled once (`fsmem.harnesses`); every other module reads them.

Both are checked on the parsed source (Python's own `ast`), so a comment or a docstring mentioning them is fine."""

import ast
from pathlib import Path

import tailmem
from tailmem.fsmem import harnesses

PACKAGE = Path(tailmem.__file__).parent


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(), filename=str(path))


def _reads_cfg_out(node: ast.AST) -> bool:
    """`cfg.out` or `cfg.get("out")` (any config variable name)."""
    if isinstance(node, ast.Attribute) and node.attr == "out":
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "out"
    )


def test_out_folder_rule_lives_in_paths_only():
    """Before: `Path(cfg.out) if cfg.get("out") else ...` spelled in 18 places although `paths` had the helper."""
    spelled = [
        f"{name}:{node.lineno}"
        for name, tree in _modules()
        if name != "paths.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.IfExp) and _reads_cfg_out(node.test)
    ]
    assert spelled == [], f"use tailmem.paths.out_dir(cfg, default) instead of spelling the rule: {spelled}"


# Modules where the word means something else: a Matplotlib alignment or location, a Markdown column alignment.
OTHER_MEANING = {
    "report/plots.py",
    "studies/longmemeval/figures.py",
    "site/markdown.py",
    "accesslog/audit_write.py",
}  # text alignment, not the harness


def test_main_harness_name_is_spelled_once():
    """Before: the harness name "center" was a literal in 13 places; now `harness_names.CENTER` (re-exported by `harnesses`) is its one home."""
    spelled = [
        f"{name}:{node.lineno}"
        for name, tree in _modules()
        if name != "fsmem/harness_names.py" and name not in OTHER_MEANING
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == harnesses.CENTER
    ]
    assert spelled == [], f"read the name from tailmem.fsmem.harnesses (CENTER / MAIN_HARNESS): {spelled}"
    assert harnesses.CENTER in harnesses.HARNESSES and harnesses.MAIN_HARNESS in harnesses.HARNESSES
