"""Audit records into one frame: a row per run, the columns every random-walk table reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from tailmem.records.audit import Audit


def audit_row(run: Any, audit: Audit) -> dict:
    """Flatten one audit.json into the columns the tables use; `run` is any record with policy, retrieval,
    family, n and seed (`tailmem.targets.Run`)."""
    conc, tail, gof = audit.concentration, audit.tail, audit.gof
    return {
        "policy": run.policy,  # the walk policy, not the role
        "retrieval": run.retrieval,
        "family": run.family,
        "n": run.n,
        "seed": run.seed,
        "gini": conc.gini,
        "top10_pct": 100.0 * conc.top_share,
        "sigma_top10": conc.sigma_top10,
        "max_median": conc.max_median,
        "skew": conc.skew,
        "tail_status": tail.status,
        "xmin": tail.xmin,
        "alpha": tail.alpha,
        "n_tail": tail.n_tail,
        "alpha_at_cap": tail.alpha_at_cap,
        "R_tpl_ln": tail.R_tpl_ln,
        "p_tpl_ln": tail.p_tpl_ln,
        "p_gof": gof.p,
        "passes": gof.passes,
    }


def audit_frame(pairs: Iterable[tuple[Any, Audit]]) -> pd.DataFrame:
    """One row per (run, audit) pair, in order."""
    return pd.DataFrame([audit_row(run, audit) for run, audit in pairs])
