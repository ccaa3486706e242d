"""table_io: `-` for a missing value in the Markdown, an empty cell in the CSV, and no table without a note."""

import re

import numpy as np
import pandas as pd
import pytest

from tailmem.report.table_io import TableError, markdown, write_table


def _frame():
    return pd.DataFrame(
        {
            "family": ["uniform", "modular"],
            "gini": [0.5, np.nan],
            "gini_sd": [0.01, np.nan],
            "gini_paper": [np.nan, 0.81],
            "fit": ["ok", None],
        },
        index=[4, 9],
    )


def test_markdown_prints_a_dash_for_every_missing_value():
    text = markdown(_frame(), "A title", "What the table shows.")
    rows = [line for line in text.splitlines() if line.startswith("| uniform") or line.startswith("| modular")]
    assert "nan" not in text.lower()
    assert rows[0].split("|")[2].strip() == "0.500 ± 0.010"
    assert rows[0].split("|")[3].strip() == "-"  # paper value missing
    assert rows[1].split("|")[2].strip() == "-"  # mean and sd missing
    assert rows[1].split("|")[3].strip() == "0.810"
    assert rows[1].split("|")[4].strip() == "-"  # None in a text column


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


def test_a_wide_table_shows_a_narrow_frame_and_its_continued_parts_and_keeps_every_column_in_the_csv(tmp_path):
    wide = pd.DataFrame({"family": ["uniform"], "a": [1.0], "b": [2.0], "slope": [0.5]})
    write_table(
        tmp_path,
        "w",
        wide,
        "W",
        "What W shows.",
        "Provenance: x",
        shown=wide[["family", "a", "b"]],
        continued=[(wide[["family", "slope"]], "W, continued", "The fits.")],
    )
    md = (tmp_path / "w.md").read_text()
    assert md.index("# W\n") < md.index("What W shows.") < md.index("## W, continued") < md.index("The fits.")
    assert md.split("## W, continued")[0].count("slope") == 0 and md.rstrip().endswith("Provenance: x")
    assert list(pd.read_csv(tmp_path / "w.csv").columns) == ["family", "a", "b", "slope"]
    with pytest.raises(TableError, match="W, continued"):
        write_table(tmp_path, "w", wide, "W", "note", continued=[(wide, "W, continued", " ")])
