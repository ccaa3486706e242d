"""The layers are checked: import-linter's contracts (pyproject.toml) hold on this tree, a planted violation breaks
them, and every top-level module of the package is placed on one side of the pipeline/library line."""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "tailmem"
SETTINGS_LAYER = ("tailmem.config_schema",)  # issue 30 step 1 rewrites it; its ignores go with it


def _contracts() -> dict[str, dict]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def _lint_imports(src: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the package under `src` (its own process: grimp reads the files, not this interpreter's
    modules), with this repository's contracts and no cache."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    cli = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(cli), "--config", str(REPO / "pyproject.toml"), "--no-cache"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


def test_the_import_contracts_hold():
    run = _lint_imports(REPO / "src")
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in run.stdout


def test_a_library_module_importing_a_stage_breaks_the_contract(tmp_path):
    """The check can fail: a memory module that imports a stage is reported, with the line that does it."""
    shutil.copytree(PACKAGE, tmp_path / "tailmem", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tailmem" / "memory" / "planted.py").write_text('"""Planted."""\n\nfrom tailmem.stages import audit\n')
    run = _lint_imports(tmp_path)
    assert run.returncode != 0
    assert "The library never imports the pipeline BROKEN" in run.stdout
    assert "tailmem.memory.planted -> tailmem.stages.audit (l.3)" in run.stdout


def _top_level_modules() -> set[str]:
    names = {f"tailmem.{p.stem}" for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    return names | {f"tailmem.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_every_module_is_placed_in_the_library_or_the_pipeline():
    """A new module or package names its layer in pyproject.toml, so it cannot sit outside the contract."""
    layers = _contracts()["library-below-pipeline"]
    library, pipeline = set(layers["source_modules"]), set(layers["forbidden_modules"])
    assert not library & pipeline
    assert _top_level_modules() == library | pipeline


@pytest.mark.parametrize("ignored", _contracts()["library-below-pipeline"].get("ignore_imports", []))
def test_only_the_settings_layer_is_excused(ignored):
    """Every excused import starts in the settings layer being rewritten (issue 30 step 1); anything else is
    fixed, not ignored."""
    assert ignored.split(" -> ")[0].strip() in SETTINGS_LAYER
