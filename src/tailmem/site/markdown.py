"""The Markdown the stages write into `results/<scale>/tables/*.md` (headings, paragraphs, pipe tables, rules, bullet
lists, `code`, **bold**), read into blocks the templates draw. A reader of our own tables is all the site needs, so
no Markdown library is added to the pins."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import Markup, escape

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])")
_RULE = re.compile(r"^\s*(-{3,}|\*{3,}|_{3,})\s*$")
_ALIGN = re.compile(r"^\s*:?-+:?\s*$")
_BULLET = re.compile(r"^\s*[-*] +(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def inline(text: str) -> Markup:
    """`text` escaped, with `code`, **bold** and *italic* turned into tags (nothing else is interpreted)."""
    out = str(escape(text))
    out = _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", out)
    out = _BOLD.sub(lambda m: f"<strong>{m.group(1)}</strong>", out)
    out = _ITALIC.sub(lambda m: f"<em>{m.group(1)}</em>", out)
    return Markup(out)


@dataclass
class Table:
    header: list[str]
    align: list[str]  # "left" | "right" | "center" per column
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class Block:
    kind: str  # heading | paragraph | table | rule | list
    text: str = ""
    level: int = 0
    table: Table | None = None
    items: list[str] = field(default_factory=list)


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


def _alignment(cell: str) -> str:
    cell = cell.strip()
    if cell.startswith(":") and cell.endswith(":"):
        return "center"
    return "right" if cell.endswith(":") else "left"


def parse(text: str) -> list[Block]:
    """The blocks of a Markdown text, in order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(Block("paragraph", " ".join(s.strip() for s in para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        if (
            line.lstrip().startswith("|")
            and i + 1 < len(lines)
            and all(_ALIGN.match(c) for c in _cells(lines[i + 1]) if c != "")
        ):
            flush()
            header, align = _cells(line), [_alignment(c) for c in _cells(lines[i + 1])]
            table = Table(header, align + ["left"] * (len(header) - len(align)))
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                table.rows.append(_cells(lines[i]))
                i += 1
            blocks.append(Block("table", table=table))
            continue
        if m := _HEADING.match(line):
            flush()
            blocks.append(Block("heading", m.group(2).strip(), level=len(m.group(1))))
        elif _RULE.match(line):
            flush()
            blocks.append(Block("rule"))
        elif m := _BULLET.match(line):
            flush()
            if blocks and blocks[-1].kind == "list":
                blocks[-1].items.append(m.group(1))
            else:
                blocks.append(Block("list", items=[m.group(1)]))
        elif blocks and blocks[-1].kind == "list" and line.startswith("  ") and not para:
            blocks[-1].items[-1] += " " + line.strip()
        else:
            para.append(line)
        i += 1
    flush()
    return blocks
