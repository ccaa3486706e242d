"""A study's section of the site from the files its stages wrote under `<results>/<section key>/`: each file of a
kind, read through its record, gives rows to the section's list and is drawn into pages.

What is every study's is done here once: finding the files (sorted, so the lists come out in the same order on
every machine), reading each, noting a file that cannot be read on the section instead of failing the whole site,
and drawing the pages after the lists are made. What is a study's own comes in as `Files`: which files, how to read
one, its rows and its pages."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from tailmem.site.model import Row, Section
from tailmem.site.pages import Writer


class Unshown(Exception):
    """Raised by a `Files.read` for a file that was read but cannot be shown; the message is the section's note."""


@dataclass(frozen=True)
class Found:
    """One file a section read: the study's results folder, the file, and what its reader returned."""

    root: Path  # <results>/<section key>
    path: Path
    data: Any

    @property
    def rel(self) -> PurePosixPath:
        """The file's folder below the study's results folder."""
        return PurePosixPath(self.path.parent.relative_to(self.root).as_posix())

    @property
    def folder(self) -> str:
        """Where the file's pages go on the site: the same folder below the section's."""
        return f"{self.root.name}/{self.rel}"


@dataclass(frozen=True)
class Files:
    """One kind of file a study's stages write, and what the site makes of it."""

    pattern: str  # a glob below <results>/<section key>/, e.g. "**/rows.parquet"
    read: Callable[[Path], Any]  # through the file's record; raise Unshown to leave a readable file out
    rows: Callable[[Found], Iterable[Row]]  # the section's list rows of one file
    draw: Callable[[Writer, list[Found]], None]  # the pages of all the files read (pages may span files)
    note: Callable[[Found], str | None] | None = None  # what a file shown lacks, said on the section


def from_files(section: Section, results: Path, *kinds: Files) -> Section:
    """`section` with the rows of every file of each of `kinds` under `<results>/<section.key>/`, a note per file
    that could not be read or shown, and a `draw` that draws the pages of each kind in turn."""
    root = results / section.key
    found: list[list[Found]] = []
    for kind in kinds:
        read = []
        for path in sorted(root.glob(kind.pattern)) if root.is_dir() else []:
            try:
                item = Found(root, path, kind.read(path))
            except Unshown as exc:
                section.notes.append(str(exc))
                continue
            except Exception as exc:  # noqa: BLE001 - one damaged file costs its pages, not the site
                section.notes.append(f"{path}: unreadable ({exc})")
                continue
            note = kind.note(item) if kind.note else None
            if note:
                section.notes.append(note)
            read.append(item)
            section.rows.extend(kind.rows(item))
        found.append(read)

    def draw(w: Writer) -> None:
        for kind, items in zip(kinds, found):
            kind.draw(w, items)

    section.draw = draw
    return section
