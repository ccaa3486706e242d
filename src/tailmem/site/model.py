"""What each kind of item (a question, a step, a game) gives the site: rows for its list and a way to draw its pages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from tailmem.site.pages import Writer

SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """`text` as one file or folder name of the site."""
    return SLUG.sub("_", str(text)).strip("_") or "_"


def verdict(value) -> str:
    """yes / no / partial / - for a score in [0, 1] or a boolean (the `correct` filter of every list)."""
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    v = float(value)
    return "yes" if v >= 1 else "no" if v <= 0 else "partial"


@dataclass
class Row:
    """One line of a section's list: where it links, the cells shown, the filter values, the searchable text."""

    href: str  # site-relative
    cells: list
    filters: dict
    text: str


@dataclass
class Section:
    """One kind of item: `draw(writer)` writes its detail pages; `rows` make its paginated, filterable list."""

    key: str  # folder under the site root
    title: str
    blurb: str
    columns: list[str]
    filters: list[tuple[str, str]]  # (key, label)
    rows: list[Row] = field(default_factory=list)
    draw: Callable[[Writer], None] | None = None
    notes: list[str] = field(default_factory=list)  # what could not be shown, and why

    def values(self, key: str) -> list[str]:
        """The distinct values of filter `key` over the rows, sorted."""
        return sorted({str(r.filters.get(key, "")) for r in self.rows if r.filters.get(key, "") != ""})
