"""Compare every table (CSV) of two results folders cell by cell: numbers within a tolerance, text exactly.

    python benchmarks/compare_tables.py DIR_A DIR_B [--rtol 1e-9] [--atol 1e-12] [--ignore-column NAME ...]
                                        [--allow-additions]

Why: a refactor that moves code must leave the tables' numbers where they were (the same numbers before and after). A CSV is
found by its path relative to each folder (`**/*.csv`), so DIR_A and DIR_B may be two results folders, or two DAG
working folders holding `results/`. Cells are compared as the CSV writes them: two cells that both parse as numbers
match when `math.isclose(a, b, rel_tol=rtol, abs_tol=atol)` (two NaNs or two empty cells match); any other cell must
be the same text. Prints each difference (file, row, column, both values) and a summary; exits 1 when anything
differs (a file on one side only, other columns, another row count, a cell), 0 otherwise. With --allow-additions, B
may add tables and columns (a later version's new outputs): those are listed as additions, the columns both have are
compared cell by cell, and a table or column only in A still differs.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

SHOWN_PER_TABLE = 20  # cell differences printed per table; the count says how many there were


@dataclass
class Report:
    compared: int = 0
    lines: list[str] = field(default_factory=list)
    differing_tables: int = 0
    additions: list[str] = field(default_factory=list)

    def differ(self, text: str) -> None:
        self.lines.append(text)


def tables(folder: Path) -> dict[str, Path]:
    """Every CSV under `folder`, keyed by its path relative to it."""
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*.csv"))}


def read(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return (rows[0], rows[1:]) if rows else ([], [])


def number(text: str) -> float | None:
    """The cell as a number (an empty cell is NaN, as pandas writes a missing value), or None for text."""
    if text.strip() == "":
        return math.nan
    try:
        return float(text)
    except ValueError:
        return None


def same_cell(a: str, b: str, rtol: float, atol: float) -> bool:
    if a == b:
        return True
    x, y = number(a), number(b)
    if x is None or y is None:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=rtol, abs_tol=atol)


def compare_table(
    name: str, a: Path, b: Path, rtol: float, atol: float, ignored: set[str], additions: list[str] | None = None
) -> list[str]:
    """The differences between two versions of one table, as printable lines (none when they match). With
    `additions` (a list), columns only in B are noted there and the shared columns compared."""
    cols_a, rows_a = read(a)
    cols_b, rows_b = read(b)
    only_a = [c for c in cols_a if c not in cols_b]
    only_b = [c for c in cols_b if c not in cols_a]
    if additions is not None and not only_a and only_b:
        additions.append(f"{name}: added columns {only_b}")
        keep = [cols_b.index(c) for c in cols_a]
        rows_b = [[r[i] for i in keep] if len(r) == len(cols_b) else r for r in rows_b]
        cols_b = cols_a
    if cols_a != cols_b:
        how = f"only in A {only_a}, only in B {only_b}" if only_a or only_b else f"order A {cols_a} vs B {cols_b}"
        return [f"{name}: columns differ ({how})"]
    if len(rows_a) != len(rows_b):
        return [f"{name}: {len(rows_a)} rows in A, {len(rows_b)} in B"]
    out = []
    for i, (ra, rb) in enumerate(zip(rows_a, rows_b), start=1):
        if len(ra) != len(rb):
            out.append(f"{name}: row {i}: {len(ra)} cells in A, {len(rb)} in B")
            continue
        for col, x, y in zip(cols_a, ra, rb):
            if col not in ignored and not same_cell(x, y, rtol, atol):
                out.append(f"{name}: row {i}, column {col!r}: A {x!r} vs B {y!r}")
    if len(out) > SHOWN_PER_TABLE:
        out = out[:SHOWN_PER_TABLE] + [f"{name}: ... {len(out) - SHOWN_PER_TABLE} more differing cells"]
    return out


def compare(
    dir_a: Path, dir_b: Path, rtol: float, atol: float, ignored: set[str] = frozenset(), allow_additions: bool = False
) -> Report:
    report = Report()
    ta, tb = tables(dir_a), tables(dir_b)
    for name in sorted(ta.keys() - tb.keys()):
        report.differ(f"{name}: only in A")
    for name in sorted(tb.keys() - ta.keys()):
        if allow_additions:
            report.additions.append(f"{name}: added (only in B)")
        else:
            report.differ(f"{name}: only in B")
    report.differing_tables = len(ta.keys() - tb.keys()) + (0 if allow_additions else len(tb.keys() - ta.keys()))
    for name in sorted(ta.keys() & tb.keys()):
        report.compared += 1
        diffs = compare_table(
            name, ta[name], tb[name], rtol, atol, ignored, report.additions if allow_additions else None
        )
        report.lines += diffs
        report.differing_tables += bool(diffs)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir_a", type=Path)
    ap.add_argument("dir_b", type=Path)
    ap.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance for numbers (default 1e-9)")
    ap.add_argument("--atol", type=float, default=1e-12, help="absolute tolerance for numbers (default 1e-12)")
    ap.add_argument(
        "--ignore-column",
        action="append",
        default=[],
        metavar="NAME",
        help="a column not compared (e.g. a wall-clock time); may be repeated",
    )
    ap.add_argument(
        "--allow-additions",
        action="store_true",
        help="tables and columns only in DIR_B are listed as additions; the shared columns are still compared",
    )
    args = ap.parse_args(argv)
    for d in (args.dir_a, args.dir_b):
        if not d.is_dir():
            ap.error(f"{d}: not a folder")
    report = compare(args.dir_a, args.dir_b, args.rtol, args.atol, set(args.ignore_column), args.allow_additions)
    for line in report.additions:
        print(line)
    for line in report.lines:
        print(line)
    print(
        f"{report.compared} tables in both folders compared; {report.differing_tables} differ "
        f"(rtol {args.rtol:g}, atol {args.atol:g})."
    )
    return 1 if report.differing_tables else 0


if __name__ == "__main__":
    sys.exit(main())
