"""benchmarks/compare_tables.py, the "same numbers" check of issue 30: run as a script on two toy results folders
written by pandas (the writer every table uses), it must see a moved number, a changed word, a missing table and
a missing column, and let a float's last-digit noise and NaN = NaN pass."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "compare_tables.py"


def _write(folder: Path, tables: dict[str, pd.DataFrame]) -> Path:
    for name, df in tables.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(folder / name, index=False)
    return folder


def _run(a: Path, b: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(a), str(b), *extra], capture_output=True, text=True)


BASE = pd.DataFrame({"arm": ["ctmc", "graph_memory"], "gini": [0.1 + 0.2, np.nan], "note": ["ok", "text"]})


def test_float_noise_and_missing_values_match(tmp_path):
    noisy = BASE.assign(gini=[0.3, np.nan])  # 0.1 + 0.2 != 0.3 in binary floating point, within 1e-9
    a = _write(tmp_path / "a", {"tables/t.csv": BASE})
    b = _write(tmp_path / "b", {"tables/t.csv": noisy})
    assert 0.1 + 0.2 != 0.3
    out = _run(a, b)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 tables in both folders compared; 0 differ" in out.stdout


def test_moved_number_changed_text_and_missing_parts_are_reported(tmp_path):
    a = _write(tmp_path / "a", {"tables/t.csv": BASE, "tables/only_a.csv": BASE, "tables/cols.csv": BASE})
    b = _write(
        tmp_path / "b",
        {
            "tables/t.csv": BASE.assign(gini=[0.31, np.nan], note=["ok", "Text"]),
            "tables/cols.csv": BASE.drop(columns="note"),
        },
    )
    out = _run(a, b)
    assert out.returncode == 1
    assert "tables/t.csv: row 1, column 'gini'" in out.stdout
    assert "tables/t.csv: row 2, column 'note': A 'text' vs B 'Text'" in out.stdout
    assert "tables/only_a.csv: only in A" in out.stdout
    assert "tables/cols.csv: columns differ (only in A ['note']" in out.stdout
    assert "2 tables in both folders compared; 3 differ" in out.stdout
    assert _run(a, b, "--rtol", "0.1", "--ignore-column", "note").stdout.count("tables/t.csv") == 0


def test_additions_are_listed_apart_and_the_shared_columns_still_compared(tmp_path):
    """A later run may add tables and columns (issue 31 did); with --allow-additions those are listed as additions
    and every shared column is still compared cell by cell, so a moved number in one still fails."""
    a = _write(tmp_path / "a", {"tables/t.csv": BASE})
    added = BASE.assign(tokens=[3, 4])
    b = _write(tmp_path / "b", {"tables/t.csv": added, "tables/new.csv": BASE})
    strict = _run(a, b)
    assert strict.returncode == 1 and "columns differ" in strict.stdout
    out = _run(a, b, "--allow-additions")
    assert out.returncode == 0, out.stdout
    assert "tables/new.csv: added (only in B)" in out.stdout
    assert "tables/t.csv: added columns ['tokens']" in out.stdout
    assert "1 tables in both folders compared; 0 differ" in out.stdout
    moved = _write(tmp_path / "c", {"tables/t.csv": added.assign(gini=[0.4, np.nan])})
    out = _run(a, moved, "--allow-additions")
    assert out.returncode == 1 and "tables/t.csv: row 1, column 'gini'" in out.stdout
    gone = _write(tmp_path / "d", {"tables/t.csv": BASE.drop(columns="note")})
    assert _run(a, gone, "--allow-additions").returncode == 1  # a column gone is not an addition
