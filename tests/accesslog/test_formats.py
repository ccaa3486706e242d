"""The access-log readers: tailmem's JSONL format, mem0-style search logs and LongMemEval retrieval logs; every
malformed line is refused with its file and line, and nothing is written for a log that does not read."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tailmem.errors import ConfigError
from tailmem.settings.audit_log import LogSpec
from tailmem.studies.audit_log.events import LogError
from tailmem.studies.audit_log.formats.jsonl import event_line, read_jsonl
from tailmem.studies.audit_log.formats.longmemeval import read_longmemeval
from tailmem.studies.audit_log.formats.mem0 import read_mem0
from tailmem.studies.audit_log.group import settings


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


GOOD = {"run": "r", "episode": 0, "step": 0, "item": "a"}


def test_jsonl_round_trip_and_counts(tmp_path):
    lines = [GOOD, {**GOOD, "step": 1, "item": "b", "tokens": 7, "source": "read_file"}, "", {**GOOD, "step": 2}]
    log = read_jsonl(write(tmp_path, "log.jsonl", lines))
    counts, items = log.counts()
    assert items == ["a", "b"] and counts.tolist() == [2, 1]
    assert log.describe()["tokens"] == 7 and log.describe()["episodes"] == 1
    again = read_jsonl(write(tmp_path, "again.jsonl", "".join(event_line(e) for e in log.events).splitlines()))
    assert list(again.events) == list(log.events)


@pytest.mark.parametrize(
    "bad, message",
    [
        ("{not json", r"bad.jsonl:2: not JSON"),
        ({"run": "r", "episode": 0, "item": "a"}, r"bad.jsonl:2: missing key\(s\) \['step'\]"),
        ({**GOOD, "tokns": 3}, r"bad.jsonl:2: unknown key\(s\) \['tokns'\]"),
        ({**GOOD, "step": -1}, r"bad.jsonl:2: step=-1: expected an integer >= 0"),
        ({**GOOD, "item": ""}, r"bad.jsonl:2: item='': expected a non-empty string"),
        ({**GOOD, "tokens": 1.5}, r"bad.jsonl:2: tokens=1.5"),
        ([1, 2], r"bad.jsonl:2: expected a JSON object"),
    ],
)
def test_jsonl_errors_name_file_and_line(tmp_path, bad, message):
    with pytest.raises(LogError, match=message):
        read_jsonl(write(tmp_path, "bad.jsonl", [GOOD, bad]))


def test_mem0_both_shapes(tmp_path):
    path = write(
        tmp_path,
        "mem0.jsonl",
        [
            {"query": "q1", "user_id": "u", "results": [{"id": "m1", "score": 0.3}, {"id": "m2"}]},
            {"query": "q2", "user_id": "u", "results": {"results": [{"id": "m1"}]}},
            {"query": "q3", "memory_ids": ["m3", 4]},
        ],
    )
    log = read_mem0(path)
    assert [(e.episode, e.step, e.item) for e in log.events] == [
        ("u", 0, "m1"),
        ("u", 0, "m2"),
        ("u", 1, "m1"),
        ("0", 0, "m3"),
        ("0", 0, "4"),
    ]


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"results": []}, r"mem0.jsonl:2: query=None"),
        ({"query": "q"}, r"mem0.jsonl:2: expected `results`"),
        ({"query": "q", "results": [{"memory": "x"}]}, r"mem0.jsonl:2: results\[0\]: expected an object with an `id`"),
    ],
)
def test_mem0_errors_name_file_and_line(tmp_path, bad, message):
    with pytest.raises(LogError, match=message):
        read_mem0(write(tmp_path, "mem0.jsonl", [{"query": "q", "memory_ids": ["a"]}, bad]))


def retrieval_line(qid, ids):
    return {"question_id": qid, "retrieval_results": {"query": "q", "ranked_items": [{"corpus_id": c} for c in ids]}}


def test_longmemeval_top_k_reads_and_unread_items(tmp_path):
    path = write(tmp_path, "r.jsonl", [retrieval_line("q1", ["s1", "s2", "s3"]), retrieval_line("q2", ["s2", "s4"])])
    log = read_longmemeval(path, top_k=1)
    counts, items = log.counts()
    assert dict(zip(items, counts.tolist())) == {"s1": 1, "s2": 1, "s3": 0, "s4": 0}


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"question_id": "q2"}, r"r.jsonl:2: question q2: expected retrieval_results.ranked_items"),
        (retrieval_line("q2", ["a", "a"]), r"r.jsonl:2: question q2: a corpus_id is ranked twice"),
        (retrieval_line("q1", ["a"]), r"r.jsonl:2: question q1 appears twice"),
        ({"question_id": "q2", "retrieval_results": {"ranked_items": [{"id": "a"}]}}, r"ranked_items\[0\]"),
    ],
)
def test_longmemeval_errors_name_file_line_and_question(tmp_path, bad, message):
    with pytest.raises(LogError, match=message):
        read_longmemeval(write(tmp_path, "r.jsonl", [retrieval_line("q1", ["a"]), bad]), top_k=5)


GROUP = {"file": None, "format": "jsonl", "name": None, "top_k": 5, "tools": None, "logs": None}


def audit_log(**changes):
    return settings({"audit_log": {**GROUP, **changes}})


def test_settings_validate_each_key():
    assert audit_log(tools={"read_file": {"argument": "path"}}).tools["read_file"].argument == "path"
    with pytest.raises(ConfigError, match="audit_log.tools.search: expected exactly one"):
        audit_log(tools={"search": {"argument": "q", "result": "json"}})
    with pytest.raises(ConfigError, match="result='xml'"):
        audit_log(tools={"search": {"result": "xml"}})
    with pytest.raises(ConfigError, match="audit_log.top_k=0"):
        audit_log(top_k=0)
    with pytest.raises(ConfigError, match="names repeat"):
        audit_log(logs=[{"name": "a", "file": "x", "format": "jsonl"}] * 2)
    with pytest.raises(ConfigError, match="format 'csv'"):
        LogSpec("a", "x", "csv")
    with pytest.raises(ConfigError, match="audit_log.unknown"):
        audit_log(unknown=1)


def test_schema_reads_the_group():
    """The group's schema (tailmem.settings.audit_log) runs the importers' own rules when a config is composed."""
    from tailmem.runner import compose_stage
    from tailmem.validation import errors

    assert errors(compose_stage("audit_log", [])) == []
    assert errors(compose_stage("audit_log", ["audit_log.format=csv"])) == [
        "audit_log.format='csv': expected one of ['jsonl', 'inspect', 'longmemeval', 'mem0']"
    ]
    assert errors(compose_stage("audit_log", ["audit_log.top_k=0"])) == ["audit_log.top_k=0: expected an integer >= 1"]


def test_counts_vector_is_integer(tmp_path):
    counts, _ = read_jsonl(write(tmp_path, "log.jsonl", [GOOD])).counts()
    assert counts.dtype == np.int64
