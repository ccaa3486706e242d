"""table_io: `-` for a missing value in the Markdown, an empty cell in the CSV, and no table without a note."""

import re

import numpy as np
import pandas as pd
import pytest

from tailmem.report.table_io import TableError, markdown, write_table


def _frame():
    return pd.DataFrame({"family": ["uniform", "modular"], "gini": [0.5, np.nan], "gini_sd": [0.01, np.nan],
                         "gini_paper": [np.nan, 0.81], "fit": ["ok", None]}, index=[4, 9])


def test_markdown_prints_a_dash_for_every_missing_value():
    text = markdown(_frame(), "A title", "What the table shows.")
    rows = [line for line in text.splitlines() if line.startswith("| uniform") or line.startswith("| modular")]
    assert "nan" not in text.lower()
    assert rows[0].split("|")[2].strip() == "0.500 ± 0.010"
    assert rows[0].split("|")[3].strip() == "-"      # paper value missing
    assert rows[1].split("|")[2].strip() == "-"      # mean and sd missing
    assert rows[1].split("|")[3].strip() == "0.810"
    assert rows[1].split("|")[4].strip() == "-"      # None in a text column


def test_csv_keeps_empty_cells_and_markdown_has_the_note(tmp_path):
    write_table(tmp_path, "t", _frame(), "A title", "What the table shows.", "Provenance: test")
    csv = (tmp_path / "t.csv").read_text().splitlines()
    assert csv[0] == "family,gini,gini_sd,gini_paper,fit"
    assert csv[2] == "modular,,,0.81,"
    md = (tmp_path / "t.md").read_text()
    assert md.startswith("# A title\n\nWhat the table shows.\n\n|")
    assert md.rstrip().endswith("Provenance: test")


@pytest.mark.parametrize("note", ["", "   \n"])
def test_an_empty_note_is_refused_naming_the_table(tmp_path, note):
    with pytest.raises(TableError, match="table my_stem"):
        write_table(tmp_path, "my_stem", _frame(), "A title", note)
    assert not list(tmp_path.iterdir())


def test_a_bar_inside_a_cell_is_escaped_so_the_row_keeps_its_columns():
    """A claim's side `|d| < m` used to end its cell early and shift the row (found in claims_fsmem and claims_ctmc)."""
    df = pd.DataFrame({"claim": ["harnesses tie"], "side": ["|d| < 0.05"], "verdict": ["HELD"]})
    rows = [line for line in markdown(df, "T", "note").splitlines() if line.startswith("|")]
    cells = [c for c in re.split(r"(?<!\\)\|", rows[-1])[1:-1]]
    assert len(cells) == 3 and cells[1].strip() == r"\|d\| < 0.05"
