"""Stage `audit_log`: the tail audit of an external memory-access log, `audit_log.file` read as
`audit_log.format`, into `<results>/audit_log/<name>/` (or `out=`). `python -m tailmem audit-log FILE --format F`
runs this stage (tailmem.studies.audit_log.command); the Snakemake rule runs it once per entry of `audit_log.logs`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tailmem.errors import ConfigError
from tailmem.paths import out_dir
from tailmem.settings.audit import settings as audit_settings
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.audit_log.group import NAME, settings

log = logging.getLogger("tailmem")
FOLDER = "audit_log"  # <results>/audit_log/<name>/


def log_name(file: str, name: str | None) -> str:
    """The log's artifact folder name: `audit_log.name`, else the file name without its suffixes, cut to the
    characters `audit_log.name` accepts (ASCII letters and digits, '.', '_', '-', a letter or digit first), so a
    derived name is never one the option would refuse."""
    if name:
        return name
    stem = Path(file).name.split(".", 1)[0]
    kept = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._-") else "_" for ch in stem)
    kept = kept.lstrip("._-")
    return kept if NAME.match(kept) else "log"


def log_dir(results: str | Path, name: str) -> Path:
    return Path(results) / FOLDER / name


def _summary(body: dict) -> str:
    """The log line of an external log's audit (its audit.json is plain data: the internal record plus
    why_no_fit and top_items)."""
    c, t = body["concentration"], body["tail"]
    alpha = "null" if t.get("alpha") is None else f"{t['alpha']:.3g}"
    return (
        f"gini={c['gini']:.3f} top share={c['top_share']:.1%} sigma_top10={c['sigma_top10']:.3g} | "
        f"tail {t['status']}: xmin={t.get('xmin')} alpha={alpha} n_tail={t.get('n_tail')}"
    )


@typed_stage("audit_log")
def run(cfg: StageSettings) -> Path:
    from tailmem.paths import AUDIT_FILE
    from tailmem.provenance import save_provenance, table_footer
    from tailmem.studies.audit_log.audit_write import write_audit
    from tailmem.studies.audit_log.formats.load import load_log

    s, a = settings(cfg), audit_settings(cfg)
    if s.file is None:
        raise ConfigError("audit_log.file: null; name the log to audit (python -m tailmem audit-log FILE --format F)")
    name = log_name(s.file, s.name)
    access = load_log(s.file, s.format, s)  # the whole log is validated before anything is written
    for note in access.notes:
        log.info("audit_log %s: %s", name, note)
    out = out_dir(cfg, log_dir(cfg.results_dir, name))
    footer = table_footer(cfg, groups=["audit_log", "audit", "seed"], data_files=[s.file])
    body = write_audit(
        out,
        name,
        access,
        a,
        int(cfg.seed),
        footer,
        provenance=lambda folder: save_provenance(
            folder, cfg, data_files=[s.file], agent="audit_log", log_format=s.format
        ),
    )
    if body["concentration"] is None:
        log.info("audit_log %s: %s", name, body["tail"]["reason"])
    else:
        log.info(
            "audit_log %s (%d reads of %d items): %s",
            name,
            body["counts"]["total"],
            body["counts"]["n_items"],
            _summary(body),
        )
    if body["tail"].get("why_no_fit"):
        log.info("audit_log %s: no tail fit: %s", name, body["tail"]["why_no_fit"])
    log.info("audit_log %s -> %s", name, out / AUDIT_FILE)
    return out / AUDIT_FILE
