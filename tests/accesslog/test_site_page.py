"""The run browser shows every audited log: a row in its list and a page with the audit's numbers and figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tailmem.cli import main
from tailmem.site_build import build_site

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "access_logs"


def test_a_page_per_audited_log(tmp_path):
    results = tmp_path / "results"
    for name, file, fmt in (("reads", "agent_reads.jsonl", "jsonl"), ("searches", "mem0_search.jsonl", "mem0")):
        assert (
            main(
                [
                    "audit-log",
                    str(EXAMPLES / file),
                    "--format",
                    fmt,
                    "--name",
                    name,
                    f"results_dir={results}",
                    "audit.bootstrap=0",
                ]
            )
            == 0
        )
    record = build_site(results, tmp_path / "figures", tmp_path / "site")
    assert record["rows"]["audit_log"] == 2
    page = (tmp_path / "site" / "audit_log" / "reads.html").read_text()
    alpha = json.loads((results / "audit_log" / "reads" / "audit.json").read_text())["tail"]["alpha"]
    assert f"{alpha:.3f}" in page and "reads_ccdf.png" in page
    assert (tmp_path / "site" / "audit_log" / "reads_ccdf.png").is_file()
    tiny = (tmp_path / "site" / "audit_log" / "searches.html").read_text()
    assert "No tail fit" in tiny and "distinct positive counts" in tiny
    assert "searches.html" in (tmp_path / "site" / "audit_log" / "index.html").read_text()
