"""Paper 1 Tables 2, 7, 8 and the Table 3 layout under the random walk, each with the paper's values beside ours.

Every function takes the audit frame (`report.audits.audit_frame`: one row per run) and returns a pandas frame:
numeric columns for the CSV; `report.table_io.markdown` renders mean +- sd over seeds next to the paper's number.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tailmem.audit.scaling import scaling_fit
from tailmem.report import paper_values as paper
from tailmem.stats.compare import compare
from tailmem.stats.settings import StatsSettings
from tailmem.stats.verdict import combine


def _mean_sd(df: pd.DataFrame, by: list[str], col: str) -> pd.DataFrame:
    g = df.groupby(by, sort=False)[col]
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1)}).reset_index()


def _scaling(df: pd.DataFrame, family: str, col: str) -> tuple[float, float]:
    per_size = df[df.family == family].groupby("n")[col].mean()
    if len(per_size) < 2:
        return float("nan"), float("nan")
    fit = scaling_fit(per_size.index.to_numpy(dtype=float), per_size.to_numpy(dtype=float))
    return fit.slope, fit.r2


def table2(df: pd.DataFrame) -> pd.DataFrame:
    """sigma_top10 per family and size, and its log-log scaling with size (paper Table 2)."""
    rows = []
    for fam in dict.fromkeys(df.family):
        sub = df[df.family == fam]
        row = {"family": fam}
        ref = paper.TABLE2_SIGMA.get(fam, {})
        for n in sorted(sub.n.unique()):
            vals = sub[sub.n == n].sigma_top10
            row[f"sigma_{n}"] = vals.mean()
            row[f"sigma_{n}_sd"] = vals.std(ddof=1)
            row[f"sigma_{n}_paper"] = ref.get(int(n), np.nan)
        row["slope"], row["r2"] = _scaling(df, fam, "sigma_top10")
        row["slope_paper"], row["r2_paper"] = ref.get("slope", np.nan), ref.get("r2", np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def table7(df: pd.DataFrame) -> pd.DataFrame:
    """Gini, top-10% share and sigma_top10 per family and size, with the scaling of sigma (paper Table 7)."""
    rows = []
    for fam in dict.fromkeys(df.family):
        sub = df[df.family == fam]
        row = {"family": fam}
        for metric, ref_table in (("gini", paper.TABLE7_GINI), ("top10_pct", paper.TABLE7_TOP10), ("sigma_top10", paper.TABLE2_SIGMA)):
            ref = ref_table.get(fam, {})
            for n in sorted(sub.n.unique()):
                vals = sub[sub.n == n][metric]
                row[f"{metric}_{n}"] = vals.mean()
                row[f"{metric}_{n}_sd"] = vals.std(ddof=1)
                row[f"{metric}_{n}_paper"] = ref.get(int(n), np.nan)
        row["gini_slope"], row["gini_r2"] = _scaling(df, fam, "gini")
        row["sigma_slope"], row["sigma_r2"] = _scaling(df, fam, "sigma_top10")
        ref = paper.TABLE2_SIGMA.get(fam, {})
        row["sigma_slope_paper"], row["sigma_r2_paper"] = ref.get("slope", np.nan), ref.get("r2", np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def table8(df: pd.DataFrame) -> pd.DataFrame:
    """Gini and max/median per retrieval design and family under the random walk (paper Table 8)."""
    rows = []
    for design in dict.fromkeys(df.retrieval):
        for fam in dict.fromkeys(df.family):
            sub = df[(df.retrieval == design) & (df.family == fam)]
            rows.append(
                {
                    "retrieval": design,
                    "family": fam,
                    "n": int(sub.n.iloc[0]),
                    "seeds": len(sub),
                    "gini": sub.gini.mean(),
                    "gini_sd": sub.gini.std(ddof=1),
                    "gini_paper": paper.TABLE8_GINI.get(design, {}).get(fam, np.nan),
                    "max_median": sub.max_median.mean(),
                    "max_median_sd": sub.max_median.std(ddof=1),
                }
            )
    return pd.DataFrame(rows)


def table3(df: pd.DataFrame) -> pd.DataFrame:
    """Tail audit per topology (paper Table 3 layout) for the traces that exist; paper values are its LLM policy's."""
    rows = []
    for (policy, retrieval, fam, n), sub in df.groupby(["policy", "retrieval", "family", "n"], sort=False):
        ref = paper.TABLE3_LLM.get(fam, {})
        passes = sub.passes.dropna()
        num = sub[["alpha", "xmin", "n_tail", "p_gof", "R_tpl_ln", "p_tpl_ln"]].apply(pd.to_numeric, errors="coerce")
        status = sub.tail_status if "tail_status" in sub else pd.Series(["ok"] * len(sub), index=sub.index)
        at_cap = sub.alpha_at_cap.fillna(False).astype(bool) if "alpha_at_cap" in sub else pd.Series(False, index=sub.index)
        rows.append(
            {
                "policy": policy,
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
    return pd.DataFrame(rows)


ALL = "all families"  # the scope of a row pooling every family: graphs as units, seeds as the outer level
DESIGN_ORDER = ("none", "recency", "state_mate_uniform", "state_aware_frequency")


def seed_slopes(sizes: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per family and seed, the log-log slope of `metric` over the sizes: one number per graph series."""
    rows = []
    for (fam, seed), sub in sizes.groupby(["family", "seed"], sort=False):
        per_size = sub.groupby("n")[metric].mean()
        if len(per_size) < 2 or (per_size <= 0).any():
            continue
        fit = scaling_fit(per_size.index.to_numpy(dtype=float), per_size.to_numpy(dtype=float))
        rows.append({"family": fam, "seed": seed, "slope": fit.slope})
    return pd.DataFrame(rows, columns=["family", "seed", "slope"])


def _scopes(frame: pd.DataFrame):
    """Each family on its own (seeds as units), then every family pooled (graphs as units within seeds)."""
    for fam in dict.fromkeys(frame.family):
        yield fam, frame[frame.family == fam]
    if frame.family.nunique() > 1:
        yield ALL, frame


def claims(sizes: pd.DataFrame, designs: pd.DataFrame, s: StatsSettings) -> pd.DataFrame:
    """Paper 1's random-walk claims, one compared metric per row with its bootstrap interval over seeds (and
    graphs, pooled), sign and Wilcoxon tests, and a HELD / NOT HELD / INCONCLUSIVE verdict (tailmem.stats).

    Size rows: a seed's log-log slope of the metric over the sizes, > 0. Design rows: the Gini difference of two
    retrieval designs on the same world and seed, ordered as the paper says; recency and state-mate count as
    equal within `s.gini_margin`. A claim with several parts ends with a row combining their verdicts.
    """
    rows = []

    def add(claim: str, scope: str, unit: str, evidence: str, comparison) -> str:
        rows.append({"claim": claim, "scope": scope, "unit": unit, **comparison.row(), "evidence": evidence})
        return comparison.verdict

    for metric in ("gini", "sigma_top10"):
        slopes = seed_slopes(sizes, metric)
        for scope, sub in _scopes(slopes):
            frame = sizes if scope == ALL else sizes[sizes.family == scope]
            slope, r2 = _scaling(frame.assign(family=scope), scope, metric)
            means = frame.groupby("n")[metric].mean()
            add(f"{metric} rises with graph size", scope, "seed" if scope != ALL else "graph (family x seed)",
                f"log-log slope of the means {slope:.3f}, R^2 {r2:.3f}; means by size "
                + ", ".join(f"{int(n)}: {v:.3f}" for n, v in means.items()),
                compare(sub.slope, sub.seed, direction="greater", settings=s))
    if not set(DESIGN_ORDER) <= set(designs.retrieval):
        return pd.DataFrame(rows)
    wide = designs.pivot_table(index=["family", "seed"], columns="retrieval", values="gini").reset_index()
    pairs = (("none", "recency"), ("none", "state_mate_uniform"), ("recency", "state_aware_frequency"),
             ("state_mate_uniform", "state_aware_frequency"))
    for scope, sub in _scopes(wide):
        unit = "seed" if scope != ALL else "world (family x seed)"
        parts = []
        for lo, hi in pairs:
            parts.append(add(f"Gini: {lo} < {hi}", scope, unit, f"{lo} {sub[lo].mean():.3f}, {hi} {sub[hi].mean():.3f}",
                             compare(sub[hi] - sub[lo], sub.seed, direction="greater", settings=s)))
        parts.append(add("Gini: recency ~ state-mate", scope, unit,
                         f"recency {sub.recency.mean():.3f}, state-mate {sub.state_mate_uniform.mean():.3f}; "
                         f"margin ±{s.gini_margin:g}",
                         compare(sub.recency - sub.state_mate_uniform, sub.seed, direction="within",
                                 threshold=s.gini_margin, settings=s)))
        rows.append({"claim": "Gini: none < recency ~ state-mate < state-aware frequency", "scope": scope,
                     "unit": "", "side": "all parts", "verdict": combine(parts),
                     "evidence": "combines the five rows above"})
    return pd.DataFrame(rows)
