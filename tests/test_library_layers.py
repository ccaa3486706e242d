"""The library's packages are layered (pyproject.toml, contract `library-layers`): a package imports only those
on its line or below, every import counted (grimp reads those inside functions too, so deferring an import does
not hide it), no import is excused, and every library package is on exactly one line, so a new package must say
where it sits. The settings, which import-linter reads by their import statements only, name no module above them
in a string either."""

import ast
import shutil
import tomllib
from pathlib import Path

from test_layers import IMPORTERS, PACKAGE, REPO, TARGET, _lint_imports


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _layered() -> list[str]:
    return [name.strip() for line in _contracts()["library-layers"]["layers"] for name in line.split(":")]


def test_every_library_package_sits_on_one_layer():
    library = set(_contracts()["library-below-pipeline"]["source_modules"])
    layered = _layered()
    assert len(layered) == len(set(layered)), "a package is on two lines"
    assert set(layered) == library


def test_no_upward_import_is_excused():
    """Before: 10 upward imports were ignored, each a config check in tailmem.settings looking a name up in the
    package that owned it. A fixed list of names now lives in its group's schema and the code that reads it imports
    it from there; a check that needs a registry above the settings lives beside the registry and runs from
    tailmem.validation, the top line."""
    contract = _contracts()["library-layers"]
    assert not contract.get("ignore_imports")
    assert contract["layers"][0] == "tailmem.validation"


def _below_settings() -> list[str]:
    """The packages the settings may import: their own line and every line below it."""
    layers = _contracts()["library-layers"]["layers"]
    at = next(i for i, line in enumerate(layers) if "tailmem.settings" in line.split(" : "))
    return [name.strip() for line in layers[at:] for name in line.split(":")]


def _above_settings(source: str) -> set[str]:
    """The `tailmem` modules above the settings that `source` imports, by an import statement anywhere (inside a
    function too) or by name: a "tailmem.x:NAME" string (what `registry("tailmem.control.arms:ENCODINGS")` read) or
    a module given to `import_module`, `lazy` or `resolve`."""
    allowed = _below_settings()
    named = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named.update(f"{node.module}.{a.name}" if node.module == "tailmem" else node.module for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.match(node.value):
            named.add(TARGET.match(node.value).group(1))
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in IMPORTERS and isinstance(node.args[0].value, str):
                named.add(node.args[0].value.split(":")[0])
    return {
        m
        for m in named
        if m.split(".")[0] == "tailmem" and m != "tailmem" and not any(m == a or m.startswith(a + ".") for a in allowed)
    }


def test_the_settings_reach_no_module_above_them():
    """No module of tailmem.settings imports a library package above it, in a function or by a string: the config
    checks that once looked names up there (rollout designs, graph families, controllers, arm encodings, benchmarks,
    harnesses, judges, ALFWorld's lists, the backends' kinds) read names defined in the settings, or run from the
    package that owns the registry (tailmem.validation)."""
    reach = {
        path.relative_to(PACKAGE).as_posix(): sorted(_above_settings(path.read_text()))
        for path in sorted((PACKAGE / "settings").glob("*.py"))
    }
    assert {name: above for name, above in reach.items() if above} == {}


def test_the_settings_check_sees_a_hidden_import():
    """The check can fail: each way the settings once reached up is seen (the old `settings/longmemeval.py`'s
    registry string, `settings/rollout.py`'s import inside a check), and what the settings may import is not."""
    old = (
        "from tailmem.settings.checks import Problems, registry\n"
        "from tailmem.errors import ConfigError\n"
        "from tailmem import roles\n"
        "def check(p, value):\n"
        "    from tailmem.rollout.choices import STARTS\n"
        "    p.one_of('encoding', value, registry('tailmem.control.arms:ENCODINGS'))\n"
        "    return resolve('tailmem.settings.llm:read')\n"
    )
    assert _above_settings(old) == {"tailmem.rollout.choices", "tailmem.control.arms"}


def test_an_upward_import_inside_a_function_breaks_the_layers(tmp_path):
    """The check can fail, and a deferred import does not hide from it: stats (low) importing memory (high) in a
    function is reported, with its line."""
    shutil.copytree(PACKAGE, tmp_path / "tailmem", ignore=shutil.ignore_patterns("__pycache__"))
    planted = '"""Planted."""\n\n\ndef f():\n    from tailmem.memory import controllers\n\n    return controllers\n'
    (tmp_path / "tailmem" / "stats" / "planted.py").write_text(planted)
    run = _lint_imports(Path(tmp_path))
    assert run.returncode != 0
    assert "The library's packages import only those below them BROKEN" in run.stdout
    assert "tailmem.stats.planted -> tailmem.memory.controllers (l.5)" in run.stdout
