"""One count vector's audit record: concentration, tail fit and bootstrap goodness of fit, with no I/O.

The graph world's audit stage and the external access-log audit write the same record from their own counts.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tailmem.audit.bootstrap import bootstrap_gof
from tailmem.audit.concentration import concentration
from tailmem.audit.tailfit import fit_tail
from tailmem.errors import ArtifactError
from tailmem.records.audit import Audit, Concentration, CountsBlock, Gof, TailBlock
from tailmem.records.rollout import RolloutTrace
from tailmem.settings.audit import AuditSettings


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
