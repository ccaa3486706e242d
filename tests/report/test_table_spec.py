"""Tables as declarative specs (studies/alfworld/data/alfworld.yaml, issue 30): every ALFWorld table's columns, source and
words come from its spec; a spec or template that cannot be used fails naming the file, the table and the key."""

import string

import pandas as pd
import pytest
import yaml

from tailmem.report import data_files, table_spec
from tailmem.report.data_files import ReportDataError
from tailmem.studies.alfworld import tables as T
from tailmem.studies.alfworld import text as W


def test_every_spec_is_complete_and_every_template_field_is_given():
    raw = yaml.safe_load(data_files.path(W.FILE).read_text())["tables"]  # PyYAML's reading, not ours
    assert set(raw) == set(W.MEMORY_TABLES) | set(W.SKILL_SIDE_TABLES) | {"claims"}
    fields = {f for s in W.SPECS.values() for t in (s.title, s.note) for _, f, _, _ in string.Formatter().parse(t) if f}
    assert "subset" in fields and "executor" in fields  # the check below is not vacuous
    W.titles("x"), W.skill_side_titles("x"), W.claims_title("x")  # a field no caller gives would raise here


def test_a_table_gets_its_spec_columns():
    """The store table's columns are the spec's, in its order (one home for the column list)."""
    row = {c: 0 for c in W.SPECS["skills_store"].columns} | {"protocol": "full_chain", "variant": "episode_log"}
    out = T.store_table(pd.DataFrame([row, row | {"variant": "no_store"}]))
    assert list(out.columns) == list(
        yaml.safe_load(data_files.path(W.FILE).read_text())["tables"]["skills_store"]["columns"]
    )
    assert list(out.variant) == ["episode_log"]  # the control has no store


def test_rows_with_other_columns_fail_naming_the_table():
    with pytest.raises(KeyError, match="table skills_erosion: rows have columns"):
        T._frame("skills_erosion", [{"protocol": "p"}])
    spec = W.SPECS["memory_family"]
    with pytest.raises(ReportDataError, match="table memory_family: columns"):
        spec.check(pd.DataFrame({"arm": [1]}))
    assert spec.check(pd.DataFrame({"family": ["put"], "ctmc": [50.0]})) is not None  # a pivot's own columns pass


def test_unknown_field_and_unknown_key_name_the_file(tmp_path, monkeypatch):
    spec = W.SPECS["memory"]
    with pytest.raises(ReportDataError, match=r"alfworld.yaml: tables.memory.title names \{subset\}"):
        spec.title_text()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "bad.yaml").write_text(
        "tables:\n  t: {source: s, columns: [a], title: x, note: y, colour: 1}\n"
    )
    monkeypatch.setattr(data_files, "path", lambda name: tmp_path / "data" / name)
    monkeypatch.setattr(table_spec, "path", lambda name: tmp_path / "data" / name)
    with pytest.raises(ReportDataError, match=r"bad.yaml: tables.t: unknown keys \['colour'\]"):
        table_spec.specs("bad.yaml")
