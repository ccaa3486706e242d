"""How every table is written: CSV for code, Markdown for people, with the provenance footer the stage hands in.

The footer is built by the stage (`tailmem.provenance.table_footer`): report code formats, it does not look up
where its numbers came from. Every table carries a note under its title: what it shows, what produced it, what is not
comparable (`write_table` refuses an empty one). A missing value is an empty cell in the CSV and `-` in the Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.artifacts import write_text
from tailmem.errors import TailmemError

MISSING = "-"  # a missing value (NaN, None) in the Markdown; the CSV keeps an empty cell


class TableError(TailmemError):
    """A table a reader cannot understand on its own (no note); the message names the table."""


def _missing_to_none(df: pd.DataFrame) -> pd.DataFrame:
    return df.astype(object).where(df.notna(), None)


def _mean_sd(m, s) -> str | None:
    if m is None or not np.isfinite(m):
        return None
    return f"{m:.3f}" if s is None or not np.isfinite(s) else f"{m:.3f} ± {s:.3f}"


def markdown(df: pd.DataFrame, title: str, note: str = "", footer: str = "") -> str:
    """Render a table: `x` with `x_sd` becomes `mean ± sd`; `x_paper` stays a column of its own; the footer
    (provenance) goes under the table after a rule. A missing value prints as `-`; a `|` in a cell is escaped."""
    out = _missing_to_none(df)
    for col in [c for c in df.columns if f"{c}_sd" in df.columns]:
        out[col] = pd.Series(
            [_mean_sd(m, s) for m, s in zip(out[col], out[f"{col}_sd"])], index=out.index, dtype=object
        )
        out = out.drop(columns=f"{col}_sd")
    out = _missing_to_none(out)
    for col in out.columns:  # a `|` inside a cell (e.g. a claim's side `|d| < m`) would end the cell early
        out[col] = pd.Series(
            [v.replace("|", "\\|") if isinstance(v, str) else v for v in out[col]], index=out.index, dtype=object
        )
    out.columns = [str(c).replace("|", "\\|") for c in out.columns]
    body = out.to_markdown(index=False, floatfmt=".3f", missingval=MISSING)
    text = f"# {title}\n\n{note}\n\n{body}\n" if note else f"# {title}\n\n{body}\n"
    return with_footer(text, footer)


def with_footer(text: str, footer: str) -> str:
    """`text` (a Markdown table) with the provenance footer under it, or unchanged without one."""
    return f"{text.rstrip()}\n\n---\n\n{footer.strip()}\n" if footer.strip() else text


def write_table(
    folder: Path,
    stem: str,
    df: pd.DataFrame,
    title: str,
    note: str,
    footer: str = "",
    shown: pd.DataFrame | None = None,
    continued: Sequence[tuple[pd.DataFrame, str, str]] = (),
) -> None:
    """`stem.csv` (numbers, for code; a missing value is an empty cell) and `stem.md` (for people: `note` under the
    title, `-` for a missing value, `footer` under the table), each written atomically. An empty `note` is refused:
    a reader needs to know what the table shows, what produced it and what is not comparable.

    A table too wide to read keeps every column in the CSV (`df`) and shows a narrower `shown` frame in the
    Markdown, followed by `continued` parts (frame, title, note), each under a heading of its own."""
    for what, text in ((title, note), *((t, n) for _, t, n in continued)):
        if not str(text).strip():
            raise TableError(
                f"table {stem} ({what!r}): empty note; say what it shows, what produced it and what is "
                "not comparable (tailmem.report.table_io.write_table)"
            )
    write_text(Path(folder) / f"{stem}.csv", df.to_csv(index=False))
    text = markdown(df if shown is None else shown, title, note)
    text += "".join("\n#" + markdown(part, t, n) for part, t, n in continued)  # '## title': a part of this table
    write_text(Path(folder) / f"{stem}.md", with_footer(text, footer))
