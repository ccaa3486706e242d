"""Collect audit artifacts into one frame: a row per run, the columns every random-walk table reads."""

from __future__ import annotations

import pandas as pd

from tailmem.artifacts import read_json
from tailmem.report.targets import Run


def audit_row(run: Run, audit: dict) -> dict:
    """Flatten one audit.json into the columns the tables use."""
    conc, tail, gof = audit["concentration"], audit.get("tail", {}), audit.get("gof", {})
    return {
        "policy": run.policy,
        "retrieval": run.retrieval,
        "family": run.family,
        "n": run.n,
        "seed": run.seed,
        "gini": conc["gini"],
        "top10_pct": 100.0 * conc["top_share"],
        "sigma_top10": conc["sigma_top10"],
        "max_median": conc["max_median"],
        "skew": conc["skew"],
        "xmin": tail.get("xmin"),
        "alpha": tail.get("alpha"),
        "n_tail": tail.get("n_tail"),
        "R_tpl_ln": tail.get("R_tpl_ln"),
        "p_tpl_ln": tail.get("p_tpl_ln"),
        "p_gof": gof.get("p"),
        "passes": gof.get("passes"),
    }


def load_audits(runs: list[Run], results: str) -> pd.DataFrame:
    """One row per run; a missing or corrupt audit raises ArtifactError naming the file."""
    return pd.DataFrame([audit_row(run, read_json(run.audit_file(results))) for run in runs])
