"""A table as a small declarative spec, read from a report data file (`report/data/<file>.yaml`, `tables:`).

Each entry says what a table is, so its words and its shape live in one place and the code only computes rows:

    memory:                                   # the stem suffix (alfworld_<subset>_memory)
      source: the memory cells' episodes      # the artifact the rows come from
      columns: [arm, games, ran, ...]         # the CSV's columns in order (the leading ones if `more_columns`)
      more_columns: one per memory arm        # optional: columns the data decides (a pivot), said in words
      paper_column: paper                     # optional: the column holding the paper's value
      title: "ALFWorld {subset}: ..."         # `str.format` templates, filled by the table's text module
      note: >-
        ...

A template naming a field its caller does not give fails naming the file, the table and the field. A file's
`words:` section holds the sentences several tables share; `text` fills one the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pandas as pd

from tailmem.report.data_files import ReportDataError, path, section

KEYS = {"source", "columns", "more_columns", "paper_column", "title", "note"}
REQUIRED = {"source", "columns", "title", "note"}


@dataclass(frozen=True)
class TableSpec:
    file: str
    name: str
    source: str
    columns: tuple[str, ...]
    title: str
    note: str
    more_columns: str = ""  # a pivot's data-decided columns, in words; empty = `columns` is the whole table
    paper_column: str = ""

    def _fill(self, what: str, template: str, fields: dict) -> str:
        try:
            return template.format_map(fields)
        except KeyError as e:
            raise ReportDataError(
                f"{path(self.file)}: tables.{self.name}.{what} names {{{e.args[0]}}}, which its "
                f"caller does not give (it gives {sorted(fields)})"
            ) from e

    def title_text(self, **fields) -> str:
        return self._fill("title", self.title, fields)

    def note_text(self, **fields) -> str:
        return self._fill("note", self.note, fields)

    def check(self, df: pd.DataFrame) -> pd.DataFrame:
        """`df` unchanged if its columns are the spec's (leading ones, for a pivot); else an error naming both."""
        head = list(df.columns[: len(self.columns)]) if self.more_columns else list(df.columns)
        if head != list(self.columns) or (self.paper_column and self.paper_column not in df.columns):
            raise ReportDataError(
                f"table {self.name}: columns {list(df.columns)} are not the spec's "
                f"{list(self.columns)} ({path(self.file)}, tables.{self.name})"
            )
        return df


@cache
def specs(file: str) -> dict[str, TableSpec]:
    """Every table spec of data file `file`, by name; an unknown or missing key fails naming the file and table."""
    out = {}
    for name, entry in section(file, "tables").items():
        keys = set(entry)
        if keys - KEYS or REQUIRED - keys:
            raise ReportDataError(
                f"{path(file)}: tables.{name}: unknown keys {sorted(keys - KEYS)}, missing "
                f"{sorted(REQUIRED - keys)} (a spec has {sorted(KEYS)})"
            )
        out[name] = TableSpec(file=file, name=name, **{k: entry[k] for k in keys})
    return out


def text(file: str, key: str, **fields) -> str:
    """`words.<key>` of data file `file` (a dotted key reaches into a mapping) filled with `fields`; a field the
    caller does not give fails naming the file and the key, as a table's own template does."""
    template = section(file, "words")
    for part in key.split("."):
        template = template[part]
    try:
        return template.format_map(fields)
    except KeyError as e:
        raise ReportDataError(
            f"{path(file)}: words.{key} names {{{e.args[0]}}}, which its caller does not give (it gives {sorted(fields)})"
        ) from e
