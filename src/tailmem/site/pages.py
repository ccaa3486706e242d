"""Writing the site's pages: one Jinja2 environment over `templates/`, relative links (the site opens from
`file://`, so no link may start at `/`), and a count of pages and bytes for the size the build reports."""

from __future__ import annotations

import json
import posixpath
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context
from markupsafe import Markup, escape

from tailmem.site.markdown import inline

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = ("site.css", "site.js")  # copied as they are into <site>/static/
PAGE_ROWS = 200  # rows per page of an item list: a default-scale list page stays well under a megabyte
MAX_BLOCK_LINES = 250  # lines of one memory block drawn on a page (Full History on LongMemEval S runs to thousands)


def rel_link(here: str, target: str) -> str:
    """`target` (a site-relative path, optionally with `#anchor`) as a link from page `here`."""
    path, sep, anchor = target.partition("#")
    if not path:
        return f"#{anchor}"
    out = posixpath.relpath(path, posixpath.dirname(here) or ".")
    return out + (f"#{anchor}" if sep else "")


@pass_context
def _link(ctx, target: str) -> str:
    return rel_link(ctx["here"], target)


def _fmt(value: Any, digits: int = 3) -> str:
    """A number as a reader wants it: integers plain, floats to `digits` places, missing as a dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:  # nan
            return "–"
        return f"{int(value)}" if value.is_integer() and abs(value) >= 1000 else f"{value:.{digits}f}"
    return str(value)


def _marked(text: str | None, marks: str | None, limit: int = MAX_BLOCK_LINES) -> Markup:
    """A memory block as lines, each tagged core or tail by its mark letter (`tailmem.memory.marks`); lines past
    `limit` are left out with a note saying how many."""
    if text is None:
        return Markup('<p class="missing">This run did not save the memory block.</p>')
    lines = text.split("\n") if text else []
    marks = marks or ""
    out = []
    for i, line in enumerate(lines[:limit]):
        kind = "tail" if i < len(marks) and marks[i] == "t" else "core"
        out.append(f'<span class="ln {kind}">{escape(line) or "&nbsp;"}</span>')
    if len(lines) > limit:
        out.append(f'<span class="ln cut">[{len(lines) - limit} more lines not drawn here]</span>')
    if not lines:
        out.append('<span class="ln cut">[empty memory block]</span>')
    return Markup('<pre class="block">' + "".join(out) + "</pre>")  # block spans: a newline would double-space


def _pretty(value: Any) -> str:
    """JSON on one line when it is short (most tool arguments), indented otherwise."""
    flat = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return flat if len(flat) <= 120 else json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True)


def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["link"] = _link
    env.filters["fmt"] = _fmt
    env.filters["marked"] = _marked
    env.filters["pretty"] = _pretty
    env.filters["inline"] = inline
    return env


@dataclass
class Writer:
    """Renders templates into `root` and counts what it wrote."""

    root: Path
    title: str
    env: Environment = field(default_factory=environment)
    pages: int = 0
    bytes: int = 0
    by_section: dict = field(default_factory=dict)

    def write(self, here: str, template: str, **ctx: Any) -> None:
        """Render `template` to the site-relative path `here`."""
        html = self.env.get_template(template).render(here=here, site_title=self.title, **ctx)
        self.write_text(here, html)
        self.pages += 1

    def write_text(self, here: str, text: str) -> None:
        path = self.root / here
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode()
        path.write_bytes(data)
        self.bytes += len(data)
        section = here.split("/", 1)[0] if "/" in here else "overview"
        self.by_section[section] = self.by_section.get(section, 0) + len(data)

    def copy(self, src: Path, here: str) -> None:
        path = self.root / here
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, path)
        size = path.stat().st_size
        self.bytes += size
        section = here.split("/", 1)[0]  # figures, tables or static
        self.by_section[section] = self.by_section.get(section, 0) + size

    def static(self) -> None:
        for name in STATIC:
            self.copy(TEMPLATES / name, f"static/{name}")


def chunks(rows: list, size: int = PAGE_ROWS) -> Iterable[tuple[int, list]]:
    """(page number from 1, rows) for each page of a list; one empty page for an empty list."""
    if not rows:
        yield 1, []
        return
    for k in range(0, len(rows), size):
        yield k // size + 1, rows[k : k + size]


def page_name(folder: str, number: int) -> str:
    """The file of page `number` of a list in `folder`: index.html, then index-2.html, ..."""
    return f"{folder}/index.html" if number == 1 else f"{folder}/index-{number}.html"
