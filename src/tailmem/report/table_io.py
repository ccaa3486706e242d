"""How every table is written: CSV for code, Markdown for people, with the provenance footer the stage hands in.

The footer is built by the stage (`tailmem.provenance.table_footer`): report code formats, it does not look up
where its numbers came from.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.artifacts import write_text


def markdown(df: pd.DataFrame, title: str, note: str = "", footer: str = "") -> str:
    """Render a table: `x` with `x_sd` becomes `mean ± sd`; `x_paper` stays a column of its own; the footer
    (provenance) goes under the table after a rule."""
    out = df.copy()
    for col in [c for c in df.columns if f"{c}_sd" in df.columns]:
        sd = df[f"{col}_sd"]
        out[col] = [
            f"{m:.3f}" if not np.isfinite(s) else f"{m:.3f} ± {s:.3f}" for m, s in zip(df[col], sd)
        ]
        out = out.drop(columns=f"{col}_sd")
    body = out.to_markdown(index=False, floatfmt=".3f")
    text = f"# {title}\n\n{note}\n\n{body}\n" if note else f"# {title}\n\n{body}\n"
    return with_footer(text, footer)


def with_footer(text: str, footer: str) -> str:
    """`text` (a Markdown table) with the provenance footer under it, or unchanged without one."""
    return f"{text.rstrip()}\n\n---\n\n{footer.strip()}\n" if footer.strip() else text


def write_table(folder: Path, stem: str, df: pd.DataFrame, title: str, note: str, footer: str = "") -> None:
    """`stem.csv` (numbers, for code) and `stem.md` (for people, `footer` under it), each written atomically."""
    write_text(Path(folder) / f"{stem}.csv", df.to_csv(index=False))
    write_text(Path(folder) / f"{stem}.md", markdown(df, title, note, footer))
