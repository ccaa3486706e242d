"""Audited access logs: one page per log under <results>/audit_log/<name>/ with what the log held,
the audit's numbers (concentration, tail fits, bootstrap p_gof, TPL vs log-normal), why no fit was made where
none was, the most read items, the CCDF figure and the table's Markdown as written."""

from __future__ import annotations

from pathlib import Path

from tailmem.errors import ArtifactError
from tailmem.records.audit import AccessLogAudit
from tailmem.site.model import Row, Section, slug
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

FOLDER = "audit_log"  # tailmem.studies.audit_log.audit.FOLDER (not imported: that module pulls in the audit stack)
AUDIT_FILE = "audit.json"


def collect(results: Path, cfg, transcripts: Transcripts) -> Section:
    section = Section(
        key="audit_log",
        title="Audited access logs: the tail audit of external runs",
        blurb="One row per access log audited by `python -m tailmem audit-log` or the Snakemake rule audit_log "
        "(docs/access-log.md). Each page gives the log's size, the internal audit's numbers on its reads per "
        "item, the reason when no tail was fitted, the most read items and the CCDF with the fitted tails.",
        columns=["log", "format", "reads", "items", "gini", "tail", "alpha", "p_gof", "favoured"],
        filters=[("format", "format"), ("tail", "tail")],
    )
    root = results / FOLDER
    audits = []
    for path in sorted(root.glob(f"*/{AUDIT_FILE}")) if root.is_dir() else []:
        try:
            body = AccessLogAudit.read(path).to_json()
        except (OSError, ArtifactError) as exc:
            section.notes.append(f"{path}: unreadable ({exc})")
            continue
        name = path.parent.name
        here = f"{FOLDER}/{slug(name)}.html"
        audits.append((here, path.parent, body))
        c, t, g, log = body.get("concentration") or {}, body["tail"], body["gof"], body.get("log", {})
        favoured = _favoured(t)
        section.rows.append(
            Row(
                here,
                [
                    name,
                    log.get("format"),
                    body["counts"]["total"],
                    body["counts"]["n_items"],
                    c.get("gini"),
                    t["status"],
                    t.get("alpha"),
                    g.get("p"),
                    favoured,
                ],
                {"format": log.get("format", ""), "tail": t["status"]},
                f"{name} {log.get('path', '')}",
            )
        )

    def draw(w: Writer) -> None:
        for here, folder, body in audits:
            figure = None
            if (folder / "ccdf.png").is_file():
                figure = f"{FOLDER}/{slug(folder.name)}_ccdf.png"
                w.copy(folder / "ccdf.png", figure)
            table = (folder / "audit_log.md").read_text() if (folder / "audit_log.md").is_file() else None
            w.write(
                here,
                "audit_log.html",
                title=f"Access log {folder.name}",
                a=body,
                figure=figure,
                table=table,
                favoured=_favoured(body["tail"]),
                back=f"{FOLDER}/index.html",
            )

    section.draw = draw
    return section


def _favoured(tail: dict) -> str:
    R, p = tail.get("R_tpl_ln"), tail.get("p_tpl_ln")
    if R is None or p is None:
        return "-"
    return "neither" if p >= 0.1 else ("truncated power law" if R > 0 else "log-normal")
