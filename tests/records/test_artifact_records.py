"""Artifact records (tailmem.records): a file of another format version, or an old cache without one, is refused
by name with its rebuild; a file whose keys are not the record's fields is refused; every record round-trips."""

import dataclasses
import importlib
import json
import re
from pathlib import Path

import pytest

from record_kit import audit_record, control_summary
from tailmem.errors import ArtifactError
from tailmem.records.arrays import ArrayRecord
from tailmem.records.audit import Audit
from tailmem.records.base import Record, Versioned
from tailmem.records.control import ControlSummary
from tailmem.records.design import DesignRows
from tailmem.records.fsmem import SnapshotManifest
from tailmem.records.provenance import RunMeta
from tailmem.records.table import TableRecord

ROOT = Path(__file__).resolve().parents[2]


def records() -> list[type[Versioned]]:
    """Every artifact record: each module of `tailmem.records` imported, so its classes are subclasses below."""
    for module in sorted((ROOT / "src" / "tailmem" / "records").glob("*.py")):
        importlib.import_module(f"tailmem.records.{module.stem}")
    bases = {Record, TableRecord, ArrayRecord}
    return sorted({c for c in _subclasses(Versioned) if c not in bases}, key=lambda c: c.__name__)


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_an_old_cache_without_a_format_version_is_refused_with_its_rebuild(tmp_path):
    """main before issue 30 wrote summary.json without a version: reading one names the file and the rule."""
    path = tmp_path / "graph_memory-compact" / "summary.json"
    path.parent.mkdir()
    old = dataclasses.asdict(control_summary(arm="graph_memory-compact"))  # exactly the fields, no version
    path.write_text(json.dumps(old))
    with pytest.raises(ArtifactError) as err:
        ControlSummary.read(path)
    message = str(err.value)
    assert str(path) in message and "no format_version" in message
    assert "--forcerun control`" in message and str(path.parent) in message


def test_another_format_version_is_refused(tmp_path):
    path = audit_record().write(tmp_path / "audit.json")
    data = json.loads(path.read_text()) | {"format_version": Audit.format_version + 1}
    path.write_text(json.dumps(data))
    with pytest.raises(ArtifactError, match=rf"format_version {Audit.format_version + 1}.*--forcerun audit`"):
        Audit.read(path)


@pytest.mark.parametrize("change", ["drop", "add"])
def test_keys_other_than_the_fields_are_refused_naming_them(tmp_path, change):
    path = control_summary().write(tmp_path / "summary.json")
    data = json.loads(path.read_text())
    if change == "drop":
        del data["tail_error"]
    else:
        data["tail_eror"] = 0.5
    path.write_text(json.dumps(data))
    with pytest.raises(ArtifactError, match="missing keys \\['tail_error'\\]" if change == "drop" else "tail_eror"):
        ControlSummary.read(path)


def test_nested_blocks_are_read_back_as_records(tmp_path):
    audit = audit_record(tail={"status": "ok", "xmin": 3.0, "tpl": {"alpha": 2.0, "lambda": 0.1}}, gof={"p": 0.4})
    back = Audit.read(audit.write(tmp_path / "audit.json"))
    assert back == audit and back.tail.ok and back.concentration.gini == 0.0


def test_non_finite_numbers_are_written_as_null_where_the_record_says_so(tmp_path):
    text = audit_record(tail={"alpha": float("nan")}).write(tmp_path / "audit.json").read_text()
    assert "NaN" not in text and json.loads(text)["tail"]["alpha"] is None


def test_every_record_names_a_rule_that_rebuilds_it():
    rules = set(
        re.findall(
            r"^rule (\w+):",
            "".join(
                p.read_text()
                for p in [
                    ROOT / "Snakefile",  # the model slice's own rules (the role and policy probes)
                    *(ROOT / "workflows").glob("*.smk"),
                    *(ROOT / "src" / "tailmem" / "studies").glob("*/*.smk"),
                ]
            ),
            re.M,
        )
    )
    for cls in records():
        if cls is RunMeta:  # every stage writes one: its rebuild names the folder's rule as <rule>
            assert "--forcerun <rule>`" in cls.rebuild("x/meta.json")
            continue
        if cls is DesignRows:  # each study writes its own: rule <study>_design_rows, one per study with a row
            from tailmem.design_table.rows import STUDIES

            assert "--forcerun <study>_design_rows`" in cls.rebuild("x/fsmem.json")
            assert {f"{s}_design_rows" for s in STUDIES} <= rules
            continue
        assert cls.rule in rules, (cls.__name__, cls.rule)
        assert f"--forcerun {cls.rule}`" in cls.rebuild("x/summary.json") or (
            cls is SnapshotManifest and "--forcerun <rule>`" in cls.rebuild("x/snapshots/manifests/final.json")
        )
        assert cls.format_version >= 1 and cls.kind != Record.kind


def test_no_stage_table_or_site_module_reads_a_typed_artifact_as_a_bare_dict():
    """summary.json, audit.json, build.json and answers.json are read through their records (issue 30)."""
    bare = re.compile(
        r"read_json\([^)]*(summary_file|audit_file|build_file|answers_file|matched_from|"
        r"SUMMARY_FILE|AUDIT_FILE|BUILD_FILE|ANSWERS_FILE)"
    )
    src = ROOT / "src" / "tailmem"
    offenders = [
        f"{p.relative_to(src)}:{i}"
        for p in src.rglob("*.py")
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert offenders == []
