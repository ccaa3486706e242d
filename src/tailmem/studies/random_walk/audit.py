"""Stage `audit`: concentration, tail fit and bootstrap p of one trace's access counts -> audit.json.

Reads `counts` from `<input or rollout dir>/trace.npz`; writes config.yaml and meta.json first and audit.json
last, so a run that dies half-way leaves no complete-looking audit behind.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tailmem.audit.record import audit_counts, read_counts
from tailmem.paths import AUDIT_FILE, TRACE_FILE, audit_dir, out_dir, rollout_dir
from tailmem.provenance import save_provenance
from tailmem.records.audit import Audit
from tailmem.settings.audit import AuditSettings, settings  # noqa: F401  (the audit group's schema)
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")


def summary(audit: Audit) -> str:
    c, t, g = audit.concentration, audit.tail, audit.gof

    def fmt(v, spec=".3g"):
        return "null" if v is None else format(v, spec)

    return (
        f"gini={fmt(c.gini, '.3f')} top{c.top_fraction:.0%}={fmt(c.top_share, '.1%')} "
        f"sigma_top10={fmt(c.sigma_top10)} max/median={fmt(c.max_median)} | tail {t.status}: "
        f"xmin={fmt(t.xmin)} alpha={fmt(t.alpha)}{' (at cap)' if t.alpha_at_cap else ''} "
        f"n_tail={t.n_tail} R_tpl_ln={fmt(t.R_tpl_ln)} | "
        f"p_gof={fmt(g.p)} (B={g.B}) passes={g.passes}"
    )


@typed_stage("audit")
def run(cfg: StageSettings) -> Path:
    s = settings(cfg)
    src = Path(cfg.input) if cfg.input else rollout_dir(cfg.composed)
    trace = src / TRACE_FILE
    counts = read_counts(trace)
    audit = audit_counts(counts, s, int(cfg.seed))
    out = out_dir(cfg, audit_dir(cfg.composed))
    save_provenance(out, cfg, agent=cfg.policy.name, trace=str(trace))
    audit.write(out / AUDIT_FILE)
    log.info("audit %s: %s", out, summary(audit))
    return out / AUDIT_FILE
