"""Issue 17: every figure and table the DAG writes passes the reader checks, because only their two homes write
them. `.savefig(` is called in tailmem.report.plots alone (save_figure: titles, worded labels, legible text) and
`.to_markdown(` in tailmem.report.table_io alone (write_table / markdown: a note, `-` for a missing value).
A scan of the package's syntax trees, so a new writer that bypasses them fails here, naming file and line."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tailmem"
HOMES = {"savefig": "report/plots.py", "to_markdown": "report/table_io.py"}


def _calls_of(path: Path, method: str) -> list[int]:
    """Lines of `path` that call `<anything>.<method>(...)`."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == method
    ]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_scan_sees_the_package_and_both_homes():
    found = {p.relative_to(PACKAGE).as_posix() for p in _modules()}
    assert len(found) > 50 and set(HOMES.values()) <= found
    for method, home in HOMES.items():  # the homes really do call them, so the scan would see a call
        assert _calls_of(PACKAGE / home, method), f"{home} no longer calls .{method}(: update this test"


@pytest.mark.parametrize("method", sorted(HOMES))
def test_only_the_home_module_calls(method):
    home = PACKAGE / HOMES[method]
    offenders = [f"{p.relative_to(PACKAGE)}:{line}" for p in _modules() if p != home for line in _calls_of(p, method)]
    assert not offenders, (
        f".{method}( outside {HOMES[method]} at {offenders}: write figures with "
        "tailmem.report.plots.save_figure and tables with tailmem.report.table_io.write_table"
    )
