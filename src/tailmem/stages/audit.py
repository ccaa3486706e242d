"""Stage `audit`: concentration, tail fit and bootstrap p of one trace's access counts -> audit.json.

Reads `counts` from `<input or rollout dir>/trace.npz`; writes config.yaml and meta.json first and audit.json
last, so a run that dies half-way leaves no complete-looking audit behind.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np

from tailmem.audit.bootstrap import bootstrap_gof
from tailmem.audit.concentration import Concentration, concentration
from tailmem.audit.tailfit import fit_tail
from tailmem.errors import ArtifactError
from tailmem.paths import AUDIT_FILE, TRACE_FILE, audit_dir, out_dir, rollout_dir
from tailmem.provenance import save_provenance
from tailmem.records.audit import Audit, CountsBlock, Gof, TailBlock
from tailmem.records.rollout import RolloutTrace
from tailmem.settings.audit import AuditSettings, settings  # noqa: F401  (the audit group's schema)
from tailmem.settings.stage import StageSettings
from tailmem.stages import typed_stage

log = logging.getLogger("tailmem")


def read_counts(path: Path) -> np.ndarray:
    """The trace's access counts: a 1-D vector of non-negative integers with at least one access."""
    counts = RolloutTrace.read(path)["counts"]
    if counts.ndim != 1 or counts.size == 0:
        raise ArtifactError(f"{path}: `counts` must be a non-empty 1-D array, got shape {counts.shape}")
    if counts.dtype.kind not in "iuf" or not np.all(np.isfinite(counts)):
        raise ArtifactError(f"{path}: `counts` must be finite numbers, got dtype {counts.dtype}")
    if np.any(counts < 0) or np.any(counts != np.round(counts)):
        raise ArtifactError(f"{path}: `counts` must be non-negative integers")
    if counts.sum() == 0:
        raise ArtifactError(f"{path}: `counts` has no accesses at all")
    return counts.astype(np.int64)


def audit_counts(counts: np.ndarray, s: AuditSettings, seed: int) -> Audit:
    """The audit.json record for one count vector (no I/O); NaN and infinities are None, as JSON has them."""
    conc = concentration(counts, s.top_fraction)
    tail = fit_tail(counts, pl_alpha_max=s.pl_alpha_max, tpl_alpha_max=s.tpl_alpha_max, min_tail=s.min_tail)
    p = None
    if tail.ok and s.bootstrap > 0:
        p = bootstrap_gof(counts, tail.xmin, tail.alpha, tail.ks_D, s.bootstrap, seed, s.pl_alpha_max).p
    p = _finite(p)
    return Audit(
        concentration=Concentration(**_finite(conc.to_dict())),
        tail=TailBlock(**_finite(tail.to_dict())),
        # p and passes are null when there is no test: a degenerate or too small tail, or bootstrap = 0
        gof=Gof(
            p=p, B=s.bootstrap, threshold=s.gof_threshold, passes=None if p is None else bool(p >= s.gof_threshold)
        ),
        counts=CountsBlock(n_items=int(counts.size), total=int(counts.sum()), nonzero=int(np.count_nonzero(counts))),
    )


def _finite(obj):
    """JSON has no NaN or infinity: write null instead."""
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


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
    src = Path(cfg.input) if cfg.input else rollout_dir(cfg)
    trace = src / TRACE_FILE
    counts = read_counts(trace)
    audit = audit_counts(counts, s, int(cfg.seed))
    out = out_dir(cfg, audit_dir(cfg))
    save_provenance(out, cfg, agent=cfg.policy.name, trace=str(trace))
    audit.write(out / AUDIT_FILE)
    log.info("audit %s: %s", out, summary(audit))
    return out / AUDIT_FILE
