"""The library's packages are layered (pyproject.toml, contract `library-layers`): a package imports only those
on its line or below, every import counted (grimp reads those inside functions too, so deferring an import does
not hide it), and every library package is on exactly one line, so a new package must say where it sits."""

import shutil
import tomllib
from pathlib import Path

from test_layers import PACKAGE, REPO, _lint_imports


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


def test_the_ignored_upward_imports_are_the_settings_checks_only():
    """What is left upward is the config checks' registry look-ups (settings -> the package owning a name); any
    other upward import is fixed, not ignored."""
    ignored = _contracts()["library-layers"]["ignore_imports"]
    assert all(i.startswith("tailmem.settings.") for i in ignored), ignored
    assert len(ignored) <= 11


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
