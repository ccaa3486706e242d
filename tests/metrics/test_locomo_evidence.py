"""LoCoMo evidence coverage (issue 16 finding 1: `evidence` was loaded but never used): the dialogue ids in what
the searcher read, recovered by replaying answers.json's trace over the stored store."""

import math

import pytest

from tailmem.data.locomo import QA
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.center import center
from tailmem.fsmem.tools.management import management
from tailmem.metrics.locomo_evidence import annotate, coverage, dialogue_ids, gold_ids, match_evidence, replay_reads

NOTES = (
    "# Calvin\n## 25 May, 2023 (session 3)\n- [D3:1] Calvin: I bought a Ferrari.\n"
    "- [D3:2] Dave: Nice car!\n## 1 June, 2023 (session 4)\n- [D4:7] Calvin: I moved to Tokyo.\n"
)


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "store")
    assert (
        management(s).call("create", {"path": "people/calvin.md", "description": "Calvin's life", "content": NOTES}).ok
    )
    return s


def test_ids_are_read_leniently():
    assert dialogue_ids("[D3:1] x [D12:05]; D:11:26 D") == {"D3:1", "D12:5"}
    assert gold_ids(["D8:6; D9:17", "D9:1 D4:4", "D30:05", "D"]) == {"D8:6", "D9:17", "D9:1", "D4:4", "D30:5"}


def _replayed(harness):
    return lambda name, args: harness.call(name, args).output


def test_replay_recovers_what_a_view_and_a_grep_showed(store):
    h = _replayed(center(store))
    lines = NOTES.splitlines()
    tokyo = next(i for i, line in enumerate(lines, start=1) if "Tokyo" in line)
    view_tokyo = [["view", {"path": "people/calvin.md", "view_range": [tokyo + 3, tokyo + 3]}, True]]  # + frontmatter
    read = replay_reads(h, view_tokyo)
    assert read == {"D4:7"}, read
    grep = [["grep", {"pattern": "Ferrari"}, True]]
    assert replay_reads(h, grep) == {"D3:1"}
    assert replay_reads(h, [["view", {"path": "people/calvin.md"}, False]]) == set()  # a failed call showed nothing
    assert replay_reads(h, []) == set()  # closed book


def test_coverage_is_the_fraction_of_gold_ids_read():
    assert coverage({"D3:1", "D4:7"}, ["D3:1", "D5:2"]) == 0.5
    assert coverage({"D3:1"}, ["D3:1"]) == 1.0 and coverage(set(), ["D3:1"]) == 0.0
    assert math.isnan(coverage({"D3:1"}, []))


def test_rows_are_matched_to_their_questions_in_file_order():
    qa = [QA("Where?", "Tokyo", 4, ("D4:7",)), QA("Car?", "Ferrari", 4, ("D3:1",)), QA("Where?", "Osaka", 4, ("D9:1",))]
    rows = [
        {"question": "Car?", "category": 4},
        {"question": "Where?", "category": 4},
        {"question": "Where?", "category": 4},
    ]
    assert match_evidence(rows, qa) == [("D3:1",), ("D4:7",), ("D9:1",)]
    with pytest.raises(KeyError, match="not in the conversation"):
        match_evidence([{"question": "Who?", "category": 1, "qid": 3}], qa)


def test_annotate_adds_the_columns(store):
    qa = [QA("Car?", "Ferrari", 4, ("D3:1", "D3:2"))]
    rows = [{"question": "Car?", "category": 4, "search_trace": [["grep", {"pattern": "Ferrari"}, True]]}]
    (row,) = annotate(rows, qa, _replayed(center(store)))
    assert row["evidence"] == ["D3:1", "D3:2"] and row["evidence_read"] == ["D3:1"]
    assert row["evidence_coverage"] == 0.5
