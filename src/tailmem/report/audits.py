"""Audit records into one frame: a row per run, the columns every random-walk table reads."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.records.audit import Audit
from tailmem.report import paper1_values as paper
from tailmem.report.data_files import section
from tailmem.report.table_spec import specs, text
from tailmem.settings.stats import StatsGroup


def audit_row(run: Any, audit: Audit) -> dict:
    """Flatten one audit.json into the columns the tables use; `run` is any record with policy, retrieval,
    family, n and seed (`tailmem.graph_runs.Run`)."""
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


FILE = "random_walk.yaml"  # the audit tables' words and column lists (report/data/random_walk.yaml)
SPECS = specs(FILE)
# What each column means, for the tables' notes (and for any other table printing the same columns, e.g. the
# controller study's Table 3): one sentence per column, in the data file.
EXPLAIN: dict[str, str] = section(FILE, "words")["explain"]


def table3(df: pd.DataFrame) -> pd.DataFrame:
    """Tail audit per topology (paper Table 3 layout) for the traces that exist; paper values are its LLM policy's."""
    rows = []
    keys = ["policy", "retrieval", "family", "n"]  # the walk policy, not the role
    for (policy, retrieval, fam, n), sub in df.groupby(keys, sort=False):
        ref = paper.TABLE3_LLM.get(fam, {})
        passes = sub.passes.dropna()
        num = sub[["alpha", "xmin", "n_tail", "p_gof", "R_tpl_ln", "p_tpl_ln"]].apply(pd.to_numeric, errors="coerce")
        status = sub.tail_status if "tail_status" in sub else pd.Series(["ok"] * len(sub), index=sub.index)
        at_cap = (
            sub.alpha_at_cap.fillna(False).astype(bool) if "alpha_at_cap" in sub else pd.Series(False, index=sub.index)
        )
        rows.append(
            {
                "policy": policy,  # the walk policy, not the role
                "retrieval": retrieval,
                "family": fam,
                "n": n,
                "seeds": len(sub),
                # fits with numbers / all; the others are "tail_too_small" or "degenerate" (no alpha, no p_gof)
                "fitted": f"{int((status == 'ok').sum())}/{len(sub)}",
                "too_small": int((status == "tail_too_small").sum()),
                "alpha": num.alpha.mean(),
                "alpha_sd": num.alpha.std(ddof=1),
                "alpha_at_cap": int(at_cap.sum()),  # fits whose alpha sits at its cap: a bound, not an estimate
                "xmin": num.xmin.mean(),
                "n_tail": num.n_tail.mean(),
                "p_gof": num.p_gof.mean(),
                "passes": f"{int(passes.sum())}/{len(passes)}",
                "R_tpl_ln": num.R_tpl_ln.mean(),
                "p_tpl_ln": num.p_tpl_ln.mean(),
                "alpha_paper_llm": ref.get("alpha", np.nan),
                "p_gof_paper_llm": ref.get("p_gof", np.nan),
                "R_tpl_ln_paper_llm": ref.get("R_tpl_ln", np.nan),
            }
        )
    return SPECS[outputs.TABLE3_RANDOM_WALK].check(pd.DataFrame(rows))


def load_audits(runs: list, results: str) -> pd.DataFrame:
    """One row per run (`runs`: tailmem.graph_runs.Run); a missing or corrupt audit raises ArtifactError naming the file."""
    return audit_frame((run, Audit.read(run.audit_file(results))) for run in runs)


def stats_note(s: StatsGroup) -> str:
    """How every claims row is decided, for the table's note (words.stats of report/data/random_walk.yaml)."""
    return text(
        FILE,
        "stats",
        confidence_pct=100 * s.confidence,
        resamples=s.resamples,
        seed=s.seed,
        alpha=s.alpha,
        min_units=s.min_units,
    )
