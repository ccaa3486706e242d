"""The papers' numbers are data (report/data/*.yaml, issue 30): each file is shipped inside the package, every key
is named by its module (nothing in the file is silently unused), and a broken file fails naming itself."""

import pytest
import yaml

from tailmem.report import data_files, paper1_values, paper2_values


@pytest.mark.parametrize(
    "name, module, expected",
    [
        (
            "paper1.yaml",
            paper1_values,
            {"table2_sigma", "table7_gini", "table7_top10", "table8_gini", "table3_llm", "controllers", "table6"},
        ),
        ("paper2.yaml", paper2_values, None),
    ],
)
def test_every_key_of_a_paper_file_is_a_module_name(name, module, expected):
    raw = yaml.safe_load(data_files.path(name).read_text())  # PyYAML's own reading, not ours
    if expected is not None:
        assert set(raw) == expected
    for key in raw:
        assert hasattr(module, key.upper()), f"{name}: key {key!r} is not named by {module.__name__}"


def test_values_come_from_the_file():
    raw = yaml.safe_load(data_files.path("paper1.yaml").read_text())
    assert paper1_values.TABLE2_SIGMA["mixed"][1000] == raw["table2_sigma"]["mixed"][1000] == 1.430
    row = next(r for r in raw["controllers"] if (r["controller"], r["encoding"]) == ("ctmc", "compact"))
    assert paper1_values.controller_value("ctmc", "compact", "tail_error") == row["tail_error"]
    assert (
        paper2_values.ALFWORLD_CURATION_ROUNDS
        == tuple(yaml.safe_load(data_files.path("paper2.yaml").read_text())["alfworld_curation_rounds"])
        == (6, 12)
    )


def test_the_d2_gold_audit_stays_in_code():
    """Paper 2's D.2 numbers belong to the LoCoMo gold audit (issue 31), not to the data file."""
    assert "locomo_defective_golds" not in data_files.load("paper2.yaml")
    assert paper2_values.LOCOMO_DEFECTIVE_GOLDS == (20, 64, 112, 138)


def test_a_missing_key_names_the_file(monkeypatch):
    with pytest.raises(data_files.ReportDataError, match=r"paper1.yaml: no key 'table99'"):
        data_files.section("paper1.yaml", "table99")


def test_package_data_is_declared():
    """A wheel carries the data files: pyproject lists every package's `data/*.yaml` (the report toolkit's and
    each study's) and the studies' rule files as package data, and each one it should carry exists."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    assert {"data/*.yaml", "*.smk"} <= set(pyproject["tool"]["setuptools"]["package-data"]["*"])
    package = root / "src" / "tailmem"
    assert (package / "report" / "data" / "paper1.yaml").is_file()
    assert {p.parent.parent.name for p in package.glob("studies/*/data/*.yaml")} == {
        "controller",
        "longmemeval",
        "alfworld",
    }


def test_data_files_are_part_of_the_code_digest():
    """Moving numbers out of .py files must not hide them from the digest that decides what reruns: a stage whose
    closure reads report data covers its files, a stage that does not read them ignores them."""
    from tailmem.digests import source_files
    from tailmem.registry import stage

    def covered(name):
        return {p.name for p in source_files(stage(name).module, stage(name).groups)}

    assert {"alfworld.yaml", "paper1.yaml", "paper2.yaml"} <= covered("alfworld_report")
    assert not covered("graphworld") & {"alfworld.yaml", "paper2.yaml"}
