"""Build the whole site of one scale: item pages per kind, their paginated lists (with `items.js` for filters and
search across pages), the overview, figures and tables copied in so the folder stands alone.

The site is written into `<out>.partial/` and swapped in at the end, so a killed build leaves the previous site whole
and never a half site that looks complete; `site.json` (written last inside it) records what was built."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from tailmem.site import overview
from tailmem.site.model import Section
from tailmem.site.pages import PAGE_ROWS, Writer, chunks, page_name
from tailmem.site.transcripts import Transcripts
from tailmem.studies.alfworld import site as alfworld
from tailmem.studies.audit_log import site as audit_log
from tailmem.studies.controller import site as control
from tailmem.studies.fsmem import site as fsmem
from tailmem.studies.longmemeval import site as longmemeval

KINDS = (fsmem, longmemeval, control, alfworld, audit_log)
SITE_FILE = "site.json"


def _items_js(section: Section) -> str:
    """The rows of a list as a script setting `window.SITE_ITEMS` (hrefs relative to the list's folder)."""
    from tailmem.site.pages import rel_link

    here = f"{section.key}/index.html"
    items = [
        {
            "h": rel_link(here, r.href),
            "c": [_plain(c) for c in r.cells],
            "f": {k: str(v) for k, v in r.filters.items()},
            "t": " ".join(str(x) for x in (r.text, *r.cells)).lower(),
        }
        for r in section.rows
    ]
    text = json.dumps(items, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f"window.SITE_ITEMS = {text};\n"


def _plain(value):
    """A cell as JSON can hold it (numpy numbers and NaN become plain numbers and null)."""
    if value is None:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _link_col(section: Section) -> int:
    """The column whose cell links to the item: the question, else the game or the step."""
    for name in ("question", "game", "step"):
        if name in section.columns:
            return section.columns.index(name)
    return 0


def build_site(
    results: str | Path,
    figures: str | Path,
    out: str | Path,
    *,
    scale: str = "",
    cache_path=None,
    cfg=None,
    site_provenance: dict | None = None,
) -> dict:
    """Write the site of the artifacts under `results` (and the figures under `figures`) into `out`; returns what
    `site.json` records: pages, bytes (total and per section), rows per list, seconds."""
    t0 = time.perf_counter()
    results, figures, out = Path(results), Path(figures), Path(out)
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    w = Writer(partial, title=f"tailmem · {scale or results.name}")
    transcripts = Transcripts(cache_path)
    try:
        sections = [kind.collect(results, cfg, transcripts) for kind in KINDS]
        for s in sections:
            if s.draw is not None:
                s.draw(w)
            pages = max(1, -(-len(s.rows) // PAGE_ROWS))
            col = _link_col(s)
            for number, rows in chunks(s.rows):
                w.write(
                    page_name(s.key, number),
                    "list.html",
                    title=s.title,
                    section=s,
                    rows=rows,
                    page=number,
                    pages=pages,
                    total=len(s.rows),
                    link_col=col,
                    page_href=lambda p, key=s.key: page_name(key, p),
                )
            w.write_text(f"{s.key}/items.js", _items_js(s))
        by_key = {s.key: s for s in sections}
        figs = []
        for png in sorted(figures.glob("*.png")) if figures.is_dir() else []:
            w.copy(png, f"figures/{png.name}")
            figs.append({"stem": png.stem, "href": f"figures/{png.name}"})
        tables_dir = results / "tables"
        groups = overview.tables(tables_dir, by_key) if tables_dir.is_dir() else []
        for g in groups:
            for t in g.tables:
                for ext in ("md", "csv"):
                    src = tables_dir / f"{t.stem}.{ext}"
                    if src.is_file():
                        w.copy(src, f"tables/{src.name}")
        prov = overview.provenance(results, skip=(out, partial))
        site_prov = dict(site_provenance or {})
        site_prov.setdefault("commit", "unknown")
        site_prov.setdefault("dirty", None)
        site_prov.setdefault("digest", "-")
        site_prov["cache"] = (
            f"{cache_path} (read for transcripts)"
            if transcripts.available
            else "none found (no model ran, or llm.cache_path points elsewhere)"
        )
        w.write(
            "index.html",
            "overview.html",
            title=f"Run record · scale {scale}",
            scale=scale,
            groups=groups,
            n_tables=sum(len(g.tables) for g in groups),
            figures=figs,
            figures_dir=str(figures),
            sections=[
                {"key": s.key, "title": s.title, "n": len(s.rows), "blurb": s.blurb, "notes": s.notes} for s in sections
            ],
            prov=prov,
            site_prov=site_prov,
        )
        w.static()
        record = {
            "scale": scale,
            "pages": w.pages,
            "bytes": w.bytes,
            "bytes_by_section": w.by_section,
            "rows": {s.key: len(s.rows) for s in sections},
            "seconds": round(time.perf_counter() - t0, 2),
        }
        w.write_text(SITE_FILE, json.dumps(record, indent=1) + "\n")
    finally:
        transcripts.close()
    old = out.with_name(out.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    partial.rename(out)
    shutil.rmtree(old, ignore_errors=True)
    return record
