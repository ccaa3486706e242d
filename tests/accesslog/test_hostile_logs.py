"""Logs that are valid but unusual: Unicode line separators inside strings, a directory in place of a file, and
a log far larger than its distinct items, which must be read with memory bounded by the items, not the lines."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from tailmem.studies.audit_log.events import LogError
from tailmem.studies.audit_log.formats.jsonl import read_jsonl, write_jsonl
from tailmem.studies.audit_log.formats.mem0 import read_mem0

SEPARATORS = "\u2028\u2029\x85"


def test_unicode_line_separators_inside_strings_are_not_line_breaks(tmp_path):
    path = tmp_path / "mem0.jsonl"
    rows = [{"query": f"a{c}b", "memory_ids": ["m1", f"m{c}2"]} for c in SEPARATORS]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    log = read_mem0(path)
    assert log.describe()["events"] == 6
    assert log.counts()[1] == ["m1", "m\u20282", "m\u20292", "m\x852"]


def test_events_file_escapes_separators_and_reads_back(tmp_path):
    src = tmp_path / "log.jsonl"
    src.write_text(json.dumps({"run": "r", "episode": "e\u2028", "step": 0, "item": "i\x85\u2029"}) + "\n")
    log = read_jsonl(src)
    out = write_jsonl(tmp_path / "events.jsonl", log)
    text = out.read_text(encoding="utf-8")
    assert not any(c in text for c in SEPARATORS) and text.count("\n") == 1
    again = read_jsonl(out)
    assert list(again.events) == list(log.events)


def test_carriage_return_line_ends_still_read(tmp_path):
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b'{"run": "r", "episode": 0, "step": 0, "item": "a"}\r\n\r\n')
    assert read_jsonl(path).describe()["events"] == 1


def test_a_directory_is_not_a_missing_file(tmp_path):
    with pytest.raises(LogError, match="is a directory"):
        read_jsonl(tmp_path)


def test_invalid_utf8_names_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"run": "r", "episode": 0, "step": 0, "item": "a"}\n{"run": "\xff"}\n')
    with pytest.raises(LogError, match=r"bad.jsonl:2: not UTF-8"):
        read_jsonl(path)


def test_json_error_reads_once_at(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"run": "r')
    with pytest.raises(LogError) as err:
        read_jsonl(path)
    assert "Unterminated string starting at column 9)" in str(err.value)


def test_memory_is_bounded_by_items_not_lines(tmp_path):
    """50,000 reads of 50 items: the reader keeps counts, not events (a whole log in memory is its lines' size)."""
    path = tmp_path / "big.jsonl"
    line = '{{"run": "r", "episode": "e{e}", "step": {s}, "item": "item-{i}", "tokens": 12, "source": "read_file"}}\n'
    with open(path, "w") as f:
        f.writelines(line.format(e=n // 500, s=n % 500, i=n % 50) for n in range(50_000))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        log = read_jsonl(path)
        counts, items = log.counts()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts.sum() == 50_000 and len(items) == 50
    assert peak < size / 10, f"peak {peak} bytes for a {size}-byte log"


@pytest.mark.parametrize("name", ["my log!", "a,b", "a'b", "a b (1)", "  padded  "])
def test_a_name_with_spaces_is_judged_by_the_settings_not_hydras_lexer(tmp_path, capsys, name):
    from tailmem.cli import main

    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"run": "r", "episode": 0, "step": 0, "item": "a"}) + "\n")
    code = main(["audit-log", str(path), "--format", "jsonl", "--name", name, f"results_dir={tmp_path}"])
    out = capsys.readouterr()
    assert code != 0
    assert f"audit_log.name={name!r}: expected letters" in out.out + out.err
    assert not (tmp_path / "audit_log").exists()


@pytest.mark.parametrize(
    "file, name",
    [
        ("日本_log__.jsonl", "log__"),
        ("日本.jsonl", "log"),
        ("-x y.jsonl", "x_y"),
        ("a.b.jsonl", "a"),
        ("é.jsonl", "log"),
    ],
)
def test_a_name_derived_from_the_file_is_one_the_option_accepts(file, name):
    from tailmem.settings.audit_log import AuditLogGroup
    from tailmem.studies.audit_log.audit import log_name

    assert log_name(file, None) == name
    AuditLogGroup(file=None, format="jsonl", name=name, top_k=5, tools=None, logs=None)
