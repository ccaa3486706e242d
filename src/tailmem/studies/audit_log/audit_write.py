"""The tail audit of one external access log: the internal audit (tailmem.studies.random_walk.audit.audit_counts:
concentration, power-law / truncated-power-law / log-normal fits, bootstrap p_gof, TPL vs log-normal) on the
log's reads per item, and the same artifacts: audit.json, the counts (trace.npz), a table and a CCDF figure.

Artifacts in one folder per log: events.jsonl (the log in tailmem's format, whatever it was imported from),
trace.npz (`counts` and `items`), audit_log.{csv,md}, ccdf.{png,pdf}, config.yaml and meta.json, and audit.json
last, so an audit that fails leaves nothing that looks complete. A log that cannot be read fails before anything
is written. An empty log, or one too small to fit, is audited with the reason no fit was made.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.audit.record import audit_counts
from tailmem.paths import AUDIT_FILE, TRACE_FILE
from tailmem.records.audit import AccessLogAudit, AccessLogCounts
from tailmem.records.base import VERSION_KEY
from tailmem.settings.audit import AuditSettings
from tailmem.studies.audit_log.events import AccessLog
from tailmem.studies.audit_log.formats.jsonl import write_jsonl

EVENTS_FILE = "events.jsonl"
TABLE_STEM = "audit_log"
FIGURE_STEM = "ccdf"
TOP_ITEMS = 10  # the most read items listed in audit.json and on the site


def empty_audit(s: AuditSettings) -> dict:
    """audit.json of a log without a single read: nothing to measure, and it says so."""
    reason = "the log has no reads: no concentration and no tail to fit"
    return {
        "concentration": None,
        "tail": {"status": "empty", "reason": reason, "xmin": None, "alpha": None, "n_tail": 0},
        "gof": {"p": None, "B": s.bootstrap, "threshold": s.gof_threshold, "passes": None},
        "counts": {"n_items": 0, "total": 0, "nonzero": 0},
    }


def why_no_fit(tail: dict, s: AuditSettings) -> str | None:
    """One sentence on why the tail has no fit (None when it has one)."""
    if tail["status"] == "ok":
        return None
    if tail["status"] == "tail_too_small":
        return f"{tail['reason']}: audit.min_tail={s.min_tail} points are needed before a tail is fitted"
    return tail["reason"]


def verdict(tail: dict, level: float = 0.1) -> str:
    """Which of TPL and log-normal the tail favours: the sign of R when Vuong's p is below `level`."""
    R, p = tail.get("R_tpl_ln"), tail.get("p_tpl_ln")
    if R is None or p is None:
        return "-"
    if p >= level:
        return f"neither (p = {p:.2g})"
    return "truncated power law" if R > 0 else "log-normal"


def audit_body(log: AccessLog, s: AuditSettings, seed: int) -> tuple[dict, np.ndarray, list[str]]:
    counts, items = log.counts()
    # the internal audit's record as plain data: an external log's audit.json adds why_no_fit and top_items
    body = empty_audit(s) if counts.sum() == 0 else audit_counts(counts, s, seed).to_json()
    body.pop(VERSION_KEY, None)  # the internal record's version: this file is an AccessLogAudit, with its own
    body["tail"]["why_no_fit"] = why_no_fit(body["tail"], s)
    order = np.argsort(-counts, kind="stable")[:TOP_ITEMS]
    body["top_items"] = [{"item": items[i], "reads": int(counts[i])} for i in order if counts[i] > 0]
    return body, counts, items


def table_row(name: str, log: AccessLog, body: dict) -> dict:
    c, t, g = body["concentration"] or {}, body["tail"], body["gof"]
    d = log.describe()
    return {
        "log": name,
        "format": log.format,
        "events": d["events"],
        "runs": d["runs"],
        "episodes": d["episodes"],
        "items": body["counts"]["n_items"],
        "items read": body["counts"]["nonzero"],
        "reads": body["counts"]["total"],
        "tokens": d["tokens"],
        "gini": c.get("gini"),
        "top share": c.get("top_share"),
        "sigma_top10": c.get("sigma_top10"),
        "max/median": c.get("max_median"),
        "tail": t["status"],
        "xmin": t.get("xmin"),
        "alpha": t.get("alpha"),
        "n_tail": t.get("n_tail"),
        "p_gof": g["p"],
        "passes": g["passes"],
        "tpl alpha": (t.get("tpl") or {}).get("alpha"),
        "tpl lambda": (t.get("tpl") or {}).get("lambda"),
        "R_tpl_ln": t.get("R_tpl_ln"),
        "p_tpl_ln": t.get("p_tpl_ln"),
        "favoured": verdict(t),
        "why no fit": t.get("why_no_fit") or "",
    }


def table_note(log: AccessLog, s: AuditSettings, universe: bool) -> str:
    known = (
        "every item the log ranks counts, read or not (unread = 0)"
        if universe
        else "only items read at least once are known to this log, so concentration is over read items"
    )
    return (
        f"Tail audit of an external access log ({log.format}; {log.path}), by the internal audit "
        f"(tailmem.studies.random_walk.audit): one row per log; {known}. Concentration as in paper 1 (top "
        f"{s.top_fraction:.0%} share, sigma_top10 in units of the mean, max/median); tail fits by powerlaw with "
        f"xmin by KS minimisation, a fit needs audit.min_tail = {s.min_tail} points at or above xmin; p_gof from "
        f"{s.bootstrap} bootstrap replicates, passes at p >= {s.gof_threshold}; R_tpl_ln > 0 favours the "
        f"truncated power law over the log-normal (favoured: Vuong p < 0.1). Not comparable across logs with "
        f"different item universes."
    )


def ccdf_figure(name: str, counts: np.ndarray, body: dict, s: AuditSettings):
    from tailmem.report import plots

    fig, axes = plots.panel_grid(1, width=5.0, height=4.0)
    ax = axes[0]
    tail = body["tail"]
    if tail["status"] == "ok":
        plots.ccdf_with_tails(ax, counts, tail["xmin"], s.tpl_alpha_max, f"{name}: tail x >= {tail['xmin']:g}")
        ax.set_ylabel("P(X >= x) among tail items (share)", fontsize=8)
        ax.legend(fontsize=8)
    else:
        x = np.sort(counts[counts > 0])
        if x.size:
            values = np.unique(x)
            ax.loglog(values, 1.0 - np.searchsorted(x, values, side="left") / x.size, "k.", label="empirical")
            ax.legend(fontsize=8)
            plots.plain_log_ticks(ax.xaxis)
        else:
            ax.text(0.5, 0.5, "no reads", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(f"{name} (no tail fit: {tail['status']})", fontsize=8)
        ax.set_xlabel("reads per item (count)", fontsize=8)
        ax.set_ylabel("P(X >= x) among read items (share)", fontsize=8)
    ax.tick_params(which="both", labelsize=8)
    fig.suptitle(
        f"Reads per item of access log {name}: CCDF"
        + (" with fitted tails (TPL = truncated power law)" if tail["status"] == "ok" else ""),
        fontsize=9,
    )
    return fig


def file_sha256(path: str | Path) -> str:
    """The log's sha256, read in blocks (a log may be larger than memory)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def write_audit(
    out: Path, name: str, log: AccessLog, s: AuditSettings, seed: int, footer: str = "", provenance=None
) -> dict:
    """Every artifact of one log's audit into `out` (audit.json last); returns the audit.json body."""
    from tailmem.report import plots
    from tailmem.report.table_io import write_table

    body, counts, items = audit_body(log, s, seed)
    body["log"] = {
        "name": name,
        "path": log.path,
        "format": log.format,
        "sha256": file_sha256(log.path),
        **log.describe(),
        "notes": list(log.notes),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / EVENTS_FILE, log)
    AccessLogCounts({"counts": counts, "items": np.array(items, dtype=str)}).write(out / TRACE_FILE)
    write_table(
        out,
        TABLE_STEM,
        pd.DataFrame([table_row(name, log, body)]),
        f"Access-log tail audit: {name}",
        table_note(log, s, bool(log.universe)),
        footer,
    )
    plots.save_figure(ccdf_figure(name, counts, body, s), out / FIGURE_STEM)
    if provenance is not None:
        provenance(out)
    record = AccessLogAudit(**body)
    record.write(out / AUDIT_FILE)
    return record.to_json()
