"""Audited access logs: one page per log under <results>/audit_log/<name>/ with what the log held,
the audit's numbers (concentration, tail fits, bootstrap p_gof, TPL vs log-normal), why no fit was made where
none was, the most read items, the CCDF figure and the table's Markdown as written."""

from __future__ import annotations

from pathlib import Path

from tailmem.records.audit import AccessLogAudit
from tailmem.site.collect import Files, Found, from_files
from tailmem.site.model import Row, Section, slug
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

FOLDER = "audit_log"  # tailmem.studies.audit_log.audit.FOLDER (not imported: that module pulls in the audit stack)
AUDIT_FILE = "audit.json"


def collect(results: Path, cfg, transcripts: Transcripts) -> Section:
    section = Section(
        key=FOLDER,
        title="Audited access logs: the tail audit of external runs",
        blurb="One row per access log audited by `python -m tailmem audit-log` or the Snakemake rule audit_log "
        "(docs/access-log.md). Each page gives the log's size, the internal audit's numbers on its reads per "
        "item, the reason when no tail was fitted, the most read items and the CCDF with the fitted tails.",
        columns=["log", "format", "reads", "items", "gini", "tail", "alpha", "p_gof", "favoured"],
        filters=[("format", "format"), ("tail", "tail")],
    )
    audits = Files(f"*/{AUDIT_FILE}", read=lambda path: AccessLogAudit.read(path).to_json(), rows=_rows, draw=_draw)
    return from_files(section, results, audits)


def _page(audit: Found) -> str:
    return f"{FOLDER}/{slug(audit.path.parent.name)}.html"


def _rows(audit: Found) -> list[Row]:
    name, body = audit.path.parent.name, audit.data
    c, t, g, log = body.get("concentration") or {}, body["tail"], body["gof"], body.get("log", {})
    cells = [
        name,
        log.get("format"),
        body["counts"]["total"],
        body["counts"]["n_items"],
        c.get("gini"),
        t["status"],
        t.get("alpha"),
        g.get("p"),
        _favoured(t),
    ]
    return [
        Row(
            _page(audit), cells, {"format": log.get("format", ""), "tail": t["status"]}, f"{name} {log.get('path', '')}"
        )
    ]


def _draw(w: Writer, audits: list[Found]) -> None:
    for audit in audits:
        folder, body = audit.path.parent, audit.data
        figure = None
        if (folder / "ccdf.png").is_file():
            figure = f"{FOLDER}/{slug(folder.name)}_ccdf.png"
            w.copy(folder / "ccdf.png", figure)
        table = (folder / "audit_log.md").read_text() if (folder / "audit_log.md").is_file() else None
        w.write(
            _page(audit),
            "audit_log.html",
            title=f"Access log {folder.name}",
            a=body,
            figure=figure,
            table=table,
            favoured=_favoured(body["tail"]),
            back=f"{FOLDER}/index.html",
        )


def _favoured(tail: dict) -> str:
    R, p = tail.get("R_tpl_ln"), tail.get("p_tpl_ln")
    if R is None or p is None:
        return "-"
    return "neither" if p >= 0.1 else ("truncated power law" if R > 0 else "log-normal")
