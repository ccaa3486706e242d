"""Every dotted path a docstring names under `tailmem.` resolves: a module, or an attribute reached from one.

Why: docstrings are how a newcomer finds where a table or a number comes from ("`tailmem.power.stated`", "see
`tailmem.report.claims.Claim.planned`"); after a module is renamed or a function moves, a stale path sends them
nowhere. Parsed with `ast` (docstrings only, not comments); a path is resolved by its longest importable module
prefix, then attribute by attribute."""

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "tailmem"
DOTTED = re.compile(r"\btailmem(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def named_paths(source: str) -> set[str]:
    """The dotted `tailmem.` paths named in the docstrings of `source`."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        doc = ast.get_docstring(node) if isinstance(node, DOCUMENTED) else None
        found |= set(DOTTED.findall(doc or ""))
    return found


def resolves(path: str) -> bool:
    """Whether `path` is a module, or an attribute chain from its longest importable module prefix."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            spec = importlib.util.find_spec(name)
        except (ModuleNotFoundError, ValueError):
            spec = None
        if spec is None:
            continue
        obj = importlib.import_module(name)
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_a_planted_stale_path_is_caught():
    source = '"""See `tailmem.report.claims.Claim` and `tailmem.report.no_such_module.thing`."""\n'
    assert sorted(p for p in named_paths(source) if not resolves(p)) == ["tailmem.report.no_such_module.thing"]


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_dotted_path_in_a_docstring_resolves(path):
    stale = sorted(p for p in named_paths(path.read_text()) if not resolves(p))
    assert not stale, f"{path}: docstrings name {stale}, which do not resolve"
