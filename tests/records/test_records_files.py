"""The records of issue 30's second half: world.json, trace.npz and counts.npz, the parquet tables (steps, LongMemEval
rows, judge verdicts), meta.json and the caches (PersonaMem, snapshots, calibration walks, ALFWorld). Each round-trips;
a file of another format version, or an old one without a version, is refused naming the file and its rebuild; a
table or array file without the columns or arrays its readers rely on is refused; and no module outside `records/`
reads an artifact raw."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from record_kit import placeholder
from tailmem.errors import ArtifactError
from tailmem.records.alfworld import AlfworldEpisodeCache, AlfworldRegenerated
from tailmem.records.arrays import ArrayRecord
from tailmem.records.audit import AccessLogAudit, AccessLogCounts
from tailmem.records.calibration import CalibrationWalk
from tailmem.records.control import ControlCounts, ControlSteps
from tailmem.records.fsmem import PersonaMemAnswers, PersonaMemBuild, SnapshotManifest, read_answer_set
from tailmem.records.graphworld import WorldFile
from tailmem.records.judges import JudgeVerdicts
from tailmem.records.longmemeval import LongMemEvalRows
from tailmem.records.provenance import RunMeta
from tailmem.records.rollout import RolloutTrace
from tailmem.records.table import TableRecord

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "tailmem"

JSON_RECORDS = [
    WorldFile,
    AccessLogAudit,
    RunMeta,
    PersonaMemBuild,
    PersonaMemAnswers,
    SnapshotManifest,
    CalibrationWalk,
    AlfworldRegenerated,
    AlfworldEpisodeCache,
]
TABLES = [ControlSteps, LongMemEvalRows, JudgeVerdicts]
ARRAYS = [RolloutTrace, ControlCounts, AccessLogCounts]


def table(cls: type[TableRecord]) -> TableRecord:
    """Two rows with every column the record requires, plus one it does not (kept on the way back)."""
    return cls(pd.DataFrame({**{c: [1, 2] for c in cls.columns}, "extra": [0.125, None]}))


def arrays(cls: type[ArrayRecord]) -> ArrayRecord:
    return cls({name: np.arange(4, dtype=np.int64) for name in cls.names})


def _message_names_file_and_rebuild(message: str, path: Path, cls) -> None:
    assert str(path) in message, message
    # meta.json and a store's snapshot manifest are written by several rules: theirs says `--forcerun <rule>`
    assert f"--forcerun {cls.rule}`" in message or "--forcerun <rule>`" in message, message


# -- round trips ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", JSON_RECORDS, ids=lambda c: c.__name__)
def test_json_records_round_trip(tmp_path, cls):
    record = placeholder(cls)
    assert cls.read(record.write(tmp_path / "x.json")) == record


def test_meta_json_keeps_the_stage_keys_top_level(tmp_path):
    meta = placeholder(RunMeta, stage="rollout", extra={"agent": "random_walk", "n": 30})
    path = meta.write(tmp_path / "meta.json")
    body = json.loads(path.read_text())
    assert body["agent"] == "random_walk" and body["n"] == 30 and "extra" not in body
    assert RunMeta.read(path) == meta


@pytest.mark.parametrize("cls", TABLES, ids=lambda c: c.__name__)
def test_tables_round_trip_with_the_same_values(tmp_path, cls):
    record = table(cls)
    path = record.write(tmp_path / "t.parquet")
    back = cls.read(path).frame
    pd.testing.assert_frame_equal(back, pd.read_parquet(path))  # what the readers read before the records
    plain = tmp_path / "plain.parquet"
    record.frame.to_parquet(plain, index=False)
    pd.testing.assert_frame_equal(back, pd.read_parquet(plain))  # the same frame as the writer's to_parquet
    assert list(cls.read(path, columns=[cls.columns[0]]).frame.columns) == [cls.columns[0]]


@pytest.mark.parametrize("cls", ARRAYS, ids=lambda c: c.__name__)
def test_arrays_round_trip(tmp_path, cls):
    record = arrays(cls)
    back = cls.read(record.write(tmp_path / "a.npz"))
    assert set(back.arrays) == set(cls.names)  # the version is not one of the arrays read back
    for name in cls.names:
        assert np.array_equal(back[name], record[name])


# -- old files and other versions ------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", JSON_RECORDS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("version", [None, "next"])
def test_json_of_another_or_no_version_is_refused(tmp_path, cls, version):
    path = placeholder(cls).write(tmp_path / "x.json")
    data = json.loads(path.read_text())
    if version is None:
        del data["format_version"]
    else:
        data["format_version"] = cls.format_version + 1
    path.write_text(json.dumps(data))
    with pytest.raises(ArtifactError) as err:
        cls.read(path)
    _message_names_file_and_rebuild(str(err.value), path, cls)
    assert ("no format_version" if version is None else f"format_version {cls.format_version + 1}") in str(err.value)


@pytest.mark.parametrize("cls", TABLES, ids=lambda c: c.__name__)
def test_a_table_without_a_version_or_of_another_is_refused(tmp_path, cls):
    old = tmp_path / "old.parquet"
    table(cls).frame.to_parquet(old, index=False)  # as the stages wrote it before issue 30
    with pytest.raises(ArtifactError, match="no format_version") as err:
        cls.read(old)
    _message_names_file_and_rebuild(str(err.value), old, cls)
    other = pq.read_table(table(cls).write(tmp_path / "t.parquet"))
    meta = {**other.schema.metadata, b"format_version": str(cls.format_version + 1).encode()}
    pq.write_table(other.replace_schema_metadata(meta), tmp_path / "next.parquet")
    with pytest.raises(ArtifactError, match=f"format_version {cls.format_version + 1}"):
        cls.read(tmp_path / "next.parquet")


@pytest.mark.parametrize("cls", TABLES, ids=lambda c: c.__name__)
def test_a_table_short_of_a_required_column_is_refused_naming_it(tmp_path, cls):
    frame = table(cls).frame.drop(columns=cls.columns[-1])
    with pytest.raises(ArtifactError, match="lacks columns"):  # the writer is stopped first
        cls(frame).write(tmp_path / "t.parquet")
    path = tmp_path / "short.parquet"
    TableRecord(frame).write(path)  # version 1 without the column: a file of another layout
    with pytest.raises(ArtifactError, match=rf"missing columns \['{cls.columns[-1]}'\]") as err:
        cls.read(path)
    _message_names_file_and_rebuild(str(err.value), path, cls)


@pytest.mark.parametrize("cls", ARRAYS, ids=lambda c: c.__name__)
def test_arrays_without_a_version_or_of_another_or_short_are_refused(tmp_path, cls):
    path = tmp_path / "a.npz"
    np.savez(path, **arrays(cls).arrays)  # as the stages wrote it before issue 30
    with pytest.raises(ArtifactError, match="no format_version") as err:
        cls.read(path)
    _message_names_file_and_rebuild(str(err.value), path, cls)
    np.savez(path, **arrays(cls).arrays, format_version=np.array(cls.format_version + 1))
    with pytest.raises(ArtifactError, match=f"format_version {cls.format_version + 1}"):
        cls.read(path)
    np.savez(path, **{n: a for n, a in arrays(cls).arrays.items() if n != cls.names[0]}, format_version=1)
    with pytest.raises(ArtifactError, match=rf"missing arrays \['{cls.names[0]}'\]"):
        cls.read(path)


def test_a_missing_or_corrupt_table_or_array_file_names_itself(tmp_path):
    with pytest.raises(ArtifactError, match="nowhere.parquet: file not found.*--forcerun control`"):
        ControlSteps.read(tmp_path / "nowhere.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(ArtifactError, match="bad.parquet: corrupt parquet"):
        ControlSteps.read(tmp_path / "bad.parquet")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ArtifactError, match="bad.npz: corrupt array file.*--forcerun rollout`"):
        RolloutTrace.read(tmp_path / "bad.npz")


def test_a_cache_says_to_delete_it_first():
    """--forcerun does not remove a cache kept outside the rule's outputs: its message says to delete it."""
    message = PersonaMemBuild.rebuild("results/fsmem/personamem/32k/verbatim/contexts/c/build.json")
    assert "delete results/fsmem/personamem/32k/verbatim/contexts/c/build.json" in message
    assert "--forcerun fsmem_personamem`" in message


def test_an_answer_set_is_read_as_the_record_of_its_study(tmp_path):
    pm = placeholder(PersonaMemAnswers, tier="32k").write(tmp_path / "pm" / "answers.json")
    assert isinstance(read_answer_set(pm), PersonaMemAnswers)
    old = json.loads(pm.read_text())
    del old["format_version"]
    pm.write_text(json.dumps(old))
    with pytest.raises(ArtifactError, match="PersonaMem answers.json of no format_version"):
        read_answer_set(pm)


# -- the source scan --------------------------------------------------------------------------------------------
RAW_READ = re.compile(r"\bread_json\(|\bread_npz\(|\bpd\.read_parquet\(|\bnp\.load\(|json\.loads\(.*read_text\(")

# Files that read JSON, arrays or tables raw and are not pipeline artifacts (the records' scope), with the reason.
ALLOWED = {
    "artifacts.py": "the byte layer the records read through",
    "data/__init__.py": "benchmark input: the shared JSON reader of the data loaders",
    "data/longmemeval.py": "benchmark input: LongMemEval's shipped files",
    "data/locomo.py": "benchmark input: LoCoMo's shipped file",
    "data/realtalk.py": "benchmark input: REALTALK's shipped chats",
    "studies/alfworld/play/games.py": "benchmark input: the ALFWorld game manifest shipped with the repository",
    "studies/alfworld/play/regenerate.py": "benchmark input: ALFWorld's traj_data.json of each trial "
    "(its done file is a record)",
    "llm/model_file.py": "a downloaded model's stamp file, compared as a whole; not a pipeline artifact",
    "source_closure.py": "the import-closure cache of the code digest, keyed by the source files themselves",
}


def test_no_module_outside_records_reads_an_artifact_raw():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("records/") or rel in ALLOWED:
            continue
        offenders += [
            f"{rel}:{i}: {line.strip()}"
            for i, line in enumerate(path.read_text().splitlines(), 1)
            if RAW_READ.search(line)
        ]
    assert offenders == [], "read these through their record in tailmem.records:\n" + "\n".join(offenders)


def test_the_allow_list_is_current():
    """Each allowed file still exists and still reads raw (else its entry goes)."""
    for rel in ALLOWED:
        assert RAW_READ.search((SRC / rel).read_text()), rel


def test_the_scan_sees_the_calls_it_bans():
    for line in (
        "data = read_json(path)",
        "a = read_npz(p, required=('counts',))",
        "df = pd.read_parquet(path)",
        "z = np.load(path)",
        "meta = json.loads(path.read_text())",
    ):
        assert RAW_READ.search(line), line
    assert not RAW_READ.search("log = read_jsonl(path)")


def test_a_key_checked_cache_of_another_version_is_a_miss_not_an_error(tmp_path):
    """An old PersonaMem build cache is recomputed (its key decides reuse), while reading it as an artifact fails."""
    path = tmp_path / "build.json"
    body = placeholder(PersonaMemBuild, key="k").to_json()
    path.write_text(json.dumps({**body, "format_version": 0}))
    assert PersonaMemBuild.read_cache(path) is None
    assert PersonaMemBuild.read_cache(tmp_path / "absent.json") is None
    with pytest.raises(ArtifactError, match="format_version 0"):
        PersonaMemBuild.read(path)
    placeholder(PersonaMemBuild, key="k").write(path)
    assert PersonaMemBuild.read_cache(path).key == "k"
