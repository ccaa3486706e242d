"""The `audit-log` command on the shipped example logs: the internal audit's numbers, checked against powerlaw
itself and an independent Gini; a malformed log writes nothing; an empty or tiny log says why no fit was made."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tailmem.cli import main

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "access_logs"


def audit(tmp_path, file, fmt, *extra) -> tuple[int, Path]:
    out = tmp_path / "out"
    code = main(
        [
            "audit-log",
            str(file),
            "--format",
            fmt,
            "--out",
            str(out),
            f"results_dir={tmp_path}/results",
            "audit.bootstrap=0",
            *extra,
        ]
    )
    return code, out


def test_example_log_fits_as_powerlaw_fits_it(tmp_path):
    import powerlaw

    code, out = audit(tmp_path, EXAMPLES / "agent_reads.jsonl", "jsonl")
    assert code == 0
    body = json.loads((out / "audit.json").read_text())
    reads = Counter(json.loads(x)["item"] for x in (EXAMPLES / "agent_reads.jsonl").read_text().splitlines())
    counts = np.array(sorted(reads.values()), dtype=float)
    assert body["counts"]["total"] == counts.sum() == 1800
    fit = powerlaw.Fit(counts, discrete=True, parameter_ranges={"alpha": [0, 10.0]}, verbose=0)
    assert body["tail"]["status"] == "ok"
    assert body["tail"]["xmin"] == fit.xmin and body["tail"]["alpha"] == pytest.approx(fit.power_law.alpha, rel=1e-9)
    assert body["tail"]["n_tail"] == fit.n_tail
    # Gini by the mean absolute difference, not the rank formula the audit uses
    gini = np.abs(counts[:, None] - counts[None, :]).mean() / (2 * counts.mean())
    assert body["concentration"]["gini"] == pytest.approx(gini, rel=1e-9)
    assert body["log"]["tokens"] == sum(json.loads(x)["tokens"] for x in (EXAMPLES / "agent_reads.jsonl").open())
    for name in ("audit_log.csv", "audit_log.md", "ccdf.png", "ccdf.pdf", "trace.npz", "events.jsonl", "meta.json"):
        assert (out / name).is_file(), name


def test_malformed_log_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"run": "r", "episode": 0, "step": 0, "item": "a"}\n{"run": "r", "episode": 0, "step": "one", "item": "b"}\n'
    )
    code, out = audit(tmp_path, bad, "jsonl")
    assert code == 1 and not out.exists()
    assert f"{bad}:2: step='one'" in capsys.readouterr().out


def test_empty_and_tiny_logs_say_why(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, out = audit(tmp_path, empty, "jsonl")
    body = json.loads((out / "audit.json").read_text())
    assert code == 0 and body["tail"]["status"] == "empty" and "no reads" in body["tail"]["why_no_fit"]
    code, out = audit(tmp_path, EXAMPLES / "mem0_search.jsonl", "mem0", "--name", "tiny")
    body = json.loads((out / "audit.json").read_text())
    assert code == 0 and body["counts"]["total"] == 36 and body["tail"]["status"] == "degenerate"
    assert "distinct positive counts" in body["tail"]["why_no_fit"]
    # with the tail-size floor met by the distinct counts but not by min_tail: the key is named
    code, out = audit(tmp_path, EXAMPLES / "agent_reads.jsonl", "jsonl", "audit.min_tail=1000")
    body = json.loads((out / "audit.json").read_text())
    assert body["tail"]["status"] == "tail_too_small" and "audit.min_tail=1000" in body["tail"]["why_no_fit"]


def test_readme_audit_log_example_runs(tmp_path):
    """Every `python -m tailmem audit-log` line of README.md runs as written (results under tmp_path)."""
    import shlex

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    lines = [x for x in readme.splitlines() if x.startswith("python -m tailmem audit-log ")]
    assert lines, "README.md shows no audit-log example"
    for line in lines:
        argv = shlex.split(line)[3:]
        assert main([*argv, f"results_dir={tmp_path}"]) == 0, line
        body = json.loads((tmp_path / "audit_log" / "agent_reads" / "audit.json").read_text())
        assert body["tail"]["status"] == "ok" and body["gof"]["B"] == 1000 and body["gof"]["p"] is not None
