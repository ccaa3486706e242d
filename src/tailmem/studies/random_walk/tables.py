"""Paper 1 Tables 2, 7, 8 and the Table 3 layout under the random walk, each with the paper's values beside ours.

Every function takes the audit frame (`report.audits.audit_frame`: one row per run) and returns a pandas frame:
numeric columns for the CSV; `report.table_io.markdown` renders mean +- sd over seeds next to the paper's number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.audit.concentration import gini, sigma_top, top_share
from tailmem.audit.scaling import scaling_fit, semilog_fit
from tailmem.report import paper1_values as paper
from tailmem.report.claims import ALL_PARTS, PLANNED_POWER, Claim, evidence
from tailmem.report.claims import rows as claim_rows
from tailmem.report.table_spec import specs
from tailmem.settings.stats import StatsGroup
from tailmem.stats.compare import compare, missing
from tailmem.stats.verdict import INCONCLUSIVE, claim_text
from tailmem.studies.random_walk import claim_specs

FILE = "random_walk.yaml"  # these tables' words and column lists (report/data/random_walk.yaml)
SPECS = specs(FILE)


def _mean_sd(df: pd.DataFrame, by: list[str], col: str) -> pd.DataFrame:
    g = df.groupby(by, sort=False)[col]
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1)}).reset_index()


def _scaling(df: pd.DataFrame, family: str, col: str, fit=scaling_fit) -> tuple[float, float]:
    """Slope and R^2 of `fit` (log-log by default; `semilog_fit`: paper 1's) over the means at each size."""
    per_size = df[df.family == family].groupby("n")[col].mean()
    if len(per_size) < 2:
        return float("nan"), float("nan")
    line = fit(per_size.index.to_numpy(dtype=float), per_size.to_numpy(dtype=float))
    return line.slope, line.r2


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
        row["slope_ln"], row["r2_ln"] = _scaling(df, fam, "sigma_top10", semilog_fit)
        row["slope_paper"], row["r2_paper"] = ref.get("slope", np.nan), ref.get("r2", np.nan)
        rows.append(row)
    return SPECS[outputs.TABLE2_SIGMA_TOP10].check(pd.DataFrame(rows))


# Table 7's metrics and where the paper's value of each comes from (its sigma_top10 is Table 2's)
TABLE7_METRICS = (("gini", paper.TABLE7_GINI), ("top10_pct", paper.TABLE7_TOP10), ("sigma_top10", paper.TABLE2_SIGMA))


def table7(df: pd.DataFrame) -> pd.DataFrame:
    """Gini, top-10% share and sigma_top10 per family and size, with the scaling of sigma (paper Table 7)."""
    rows = []
    for fam in dict.fromkeys(df.family):
        sub = df[df.family == fam]
        row = {"family": fam}
        for metric, ref_table in TABLE7_METRICS:
            ref = ref_table.get(fam, {})
            for n in sorted(sub.n.unique()):
                vals = sub[sub.n == n][metric]
                row[f"{metric}_{n}"] = vals.mean()
                row[f"{metric}_{n}_sd"] = vals.std(ddof=1)
                row[f"{metric}_{n}_paper"] = ref.get(int(n), np.nan)
        row["gini_slope"], row["gini_r2"] = _scaling(df, fam, "gini")
        row["sigma_slope"], row["sigma_r2"] = _scaling(df, fam, "sigma_top10")
        row["sigma_slope_ln"], row["sigma_r2_ln"] = _scaling(df, fam, "sigma_top10", semilog_fit)
        ref = paper.TABLE2_SIGMA.get(fam, {})
        row["sigma_slope_paper"], row["sigma_r2_paper"] = ref.get("slope", np.nan), ref.get("r2", np.nan)
        rows.append(row)
    return SPECS[outputs.TABLE7_CONCENTRATION].check(pd.DataFrame(rows))


def table7_main(df: pd.DataFrame) -> pd.DataFrame:
    """Table 7 for reading: one row per family and size, each metric's mean and sd over seeds and the paper's value
    (a narrow companion of the wide `table7`, which the CSV keeps)."""
    rows = []
    for fam in dict.fromkeys(df.family):
        sub = df[df.family == fam]
        for n in sorted(sub.n.unique()):
            at = sub[sub.n == n]
            row = {"family": fam, "n": int(n), "seeds": len(at)}
            for metric, ref_table in TABLE7_METRICS:
                row[metric] = at[metric].mean()
                row[f"{metric}_sd"] = at[metric].std(ddof=1)
                row[f"{metric}_paper"] = ref_table.get(fam, {}).get(int(n), np.nan)
            rows.append(row)
    return pd.DataFrame(rows)


FITS = f"{outputs.TABLE7_CONCENTRATION}_fits"  # the spec of Table 7's second Markdown part


def table7_fits(df: pd.DataFrame) -> pd.DataFrame:
    """Table 7's scaling fits: per family, the log-log slope and R^2 of Gini and sigma_top10 over the sizes, with
    the paper's sigma fit (it gives none for Gini)."""
    return table7(df)[list(SPECS[FITS].columns)]


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
    return SPECS[outputs.TABLE8_RETRIEVAL_DESIGNS].check(pd.DataFrame(rows))


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


def claims(
    sizes: pd.DataFrame,
    designs: pd.DataFrame,
    s: StatsGroup,
    tails: pd.DataFrame | None = None,
    policy: str = "semantic",
    planned: Mapping[str, float] | None = None,
    concentration: pd.DataFrame | None = None,
    levels: Mapping[str, object] | None = None,
) -> pd.DataFrame:
    """Paper 1's random-walk claims, one compared metric per row with its bootstrap interval over seeds (and
    graphs, pooled), the claim's one-sided test and a HELD / NOT HELD / INCONCLUSIVE verdict with its reason
    (tailmem.stats).

    Size rows: a seed's log-log slope of the metric over the sizes, > 0. Design rows: the Gini difference of two
    retrieval designs on the same world and seed, ordered as the paper says; recency and state-mate count as
    equal within `s.margins.gini`. Tail-shape rows (with `tails`, the audit frame of the random walk and `policy`
    on the same worlds): see `tail_shape_claims`; concentration rows (with `concentration`,
    `concentration_frame`'s, read at `levels`): see `concentration_claims`. A claim with several parts ends with a
    row combining their verdicts. `planned`: the design check's planned powers
    (`tailmem.power.stated.planned_power` of the study's `design_rows.rows`), beside the rows they plan.
    """
    rows = []
    for claim in claim_specs.RANDOM_WALK_SIZE:
        slopes = seed_slopes(sizes, claim.metric)
        for scope, sub in _scopes(slopes):
            rows += claim_rows([claim.at(scope=scope)], lambda c: _size_row(c, sizes, sub, s))
    if set(DESIGN_ORDER) <= set(designs.retrieval):
        wide = designs.pivot_table(index=["family", "seed"], columns="retrieval", values="gini").reset_index()
        for scope, sub in _scopes(wide):
            spec = [c.at(scope=scope) for c in claim_specs.RANDOM_WALK_DESIGNS]
            rows += claim_rows(spec, lambda c: _design_row(c, sub, s))
    if tails is not None:
        rows += tail_shape_claims(tails, policy, s, planned)
    if concentration is not None and policy != RANDOM_WALK:
        rows += concentration_claims(concentration, policy, s, planned, levels)
    return SPECS[outputs.CLAIMS_RANDOM_WALK].check(pd.DataFrame(rows))


def _units(frame: pd.DataFrame) -> pd.Series:
    """The independent units of a row: each world (family x seed; a size row's slope is one per family and seed).
    A world's graph and its walk, retrieval and goal streams are keyed by its family, size and seed
    (`rollout.randomness.world_seed`), so two families' worlds of one seed are independent, not nested in it."""
    return frame.family.astype(str) + "/" + frame.seed.astype(str)


def _size_row(c: Claim, sizes: pd.DataFrame, slopes: pd.DataFrame, s: StatsGroup) -> dict:
    """A size row of scope `c.columns["scope"]`: the seeds' log-log slopes of the metric over the sizes (pooled:
    every family's graphs, seeds as the outer level)."""
    scope = c.columns["scope"]
    frame = sizes if scope == ALL else sizes[sizes.family == scope]
    slope, r2 = _scaling(frame.assign(family=scope), scope, c.metric)
    means = ", ".join(f"{int(n)}: {v:.3f}" for n, v in frame.groupby("n")[c.metric].mean().items())
    cmp = compare(slopes.slope, _units(slopes), direction=c.side, threshold=c.threshold, settings=s)
    return {
        "unit": "seed" if scope != ALL else "graph (family x seed)",
        **cmp.row(),
        "evidence": evidence(c, slope=slope, r2=r2, means=means),
    }


def _design_row(c: Claim, wide: pd.DataFrame, s: StatsGroup) -> dict:
    """A design row: the Gini difference of two retrieval designs on the same world and seed (`wide`: one column
    per design); margin "gini" is stats.margins.gini."""
    threshold = s.margins.gini if c.margin == "gini" else c.threshold
    cmp = compare(wide[c.arm] - wide[c.baseline], _units(wide), direction=c.side, threshold=threshold, settings=s)
    return {
        "unit": "seed" if c.columns["scope"] != ALL else "world (family x seed)",
        **cmp.row(),
        "evidence": evidence(c, a=wide[c.arm].mean(), b=wide[c.baseline].mean(), margin=threshold),
    }


RANDOM_WALK = "random_walk"


def _fitted_r(tails: pd.DataFrame, policy: str) -> pd.DataFrame:
    """One row per world of `policy` (family, n, seed) with its R_tpl_ln, nan where the tail fit gave no number."""
    sub = tails[tails.policy == policy]
    r = pd.to_numeric(sub.R_tpl_ln, errors="coerce")
    if "tail_status" in sub:
        r = r.where(sub.tail_status.fillna("ok") == "ok")
    n_tail = pd.to_numeric(sub.n_tail, errors="coerce") if "n_tail" in sub else pd.Series(np.nan, index=sub.index)
    return pd.DataFrame({"family": sub.family, "n": sub.n, "seed": sub.seed, "R": r, "n_tail": n_tail}).reset_index(
        drop=True
    )


def _r_summary(frame: pd.DataFrame) -> str:
    """`mean R over k/K fitted worlds (family: mean, ...)` for the evidence column."""
    fitted = frame.dropna(subset=["R"])
    if fitted.empty:
        return f"no fitted tail in {len(frame)} worlds"
    per_family = fitted.groupby("family", sort=False).R.mean()
    return (
        f"mean {fitted.R.mean():+.2f} over {len(fitted)}/{len(frame)} fitted worlds ("
        + ", ".join(f"{fam} {v:+.2f}" for fam, v in per_family.items())
        + ")"
    )


def _unfitted(frame: pd.DataFrame) -> str:
    """How many worlds have no fitted tail, with the range of their tail sizes where the audit gave one."""
    rest = frame[frame.R.isna()]
    sizes = rest.n_tail.dropna()
    span = "" if sizes.empty else f" (tails of {int(sizes.min())}-{int(sizes.max())} states)"
    return f"{len(rest)}{span}"


def tail_shape_claims(
    tails: pd.DataFrame, policy: str, s: StatsGroup, planned: Mapping[str, float] | None = None
) -> list[dict]:
    """Paper 1's central contrast: random-walk tails favour the log-normal (R_tpl_ln < 0), `policy` tails the
    truncated power law (R_tpl_ln > 0). `tails` is the audit frame (`report.audits.audit_frame`) of both policies on
    the same worlds (`targets.tail_contrast_runs`).

    The unit is a world (family x seed) whose tail was fitted (tail status "ok"); seeds are the outer level of the
    bootstrap. A world whose tail was too small to fit gives no R and is left out, and is counted in the evidence;
    with fewer than two fitted worlds a row has no interval and is INCONCLUSIVE. Rows: the random walk's R < 0,
    the policy's R > 0, the paired difference policy - random walk > 0 on worlds fitted under both, then the
    combined claim (the first two must hold; the difference is the same contrast read within each world).
    """
    scope, unit = ALL, "world (family x seed), fitted tails only"
    spec = [c.filled(policy=policy).at(scope=scope) for c in claim_specs.RANDOM_WALK_TAIL_SHAPE]
    if policy == RANDOM_WALK:
        return [
            {
                "claim": spec[-1].words,
                "scope": scope,
                "unit": "",
                "side": ALL_PARTS,
                "verdict": INCONCLUSIVE,
                PLANNED_POWER: float("nan"),
                "reason": "nothing to contrast",
                "evidence": "the controller study's policy is the random walk itself: nothing to contrast",
            }
        ]
    fitted_r = {RANDOM_WALK: _fitted_r(tails, RANDOM_WALK), policy: _fitted_r(tails, policy)}

    def compared(c: Claim) -> dict:
        """One row over the worlds with a number in `R`; no fitted world: no interval."""
        fields = {"policy": policy, "summary": _r_summary(fitted_r[c.arm])}  # the walk policy, not the role
        values = fitted_r[c.arm]
        if c.baseline:
            both = fitted_r[c.baseline].merge(values, on=["family", "n", "seed"], suffixes=("_b", "_a"))
            values = both.assign(R=both.R_a - both.R_b)
            fields |= {"fitted": int(values.R.notna().sum()), "worlds": len(values)}
        fitted = values.dropna(subset=["R"])
        if fitted.empty:
            row = missing(claim_text(c.side, c.threshold), "no fitted tail")
        else:
            row = compare(fitted.R, _units(fitted), direction=c.side, threshold=c.threshold, settings=s).row()
        return {"unit": unit, **row, "evidence": evidence(c, **fields)}

    def combined(c: Claim) -> dict:
        rw, pol = fitted_r[RANDOM_WALK], fitted_r[policy]
        text = c.evidence.format(
            policy=policy,
            rw_summary=_r_summary(rw),
            policy_summary=_r_summary(pol),
            rw_unfitted=_unfitted(rw),
            policy_unfitted=_unfitted(pol),
        )
        return {"evidence": text}

    return claim_rows(spec, compared, combined, planned)


def concentration_frame(
    policy_counts: Mapping[tuple, np.ndarray], walk_counts: Mapping[tuple, np.ndarray], top_fraction: float
) -> pd.DataFrame:
    """One row per world (family, n, seed): the Gini, top share and sigma_top10 of `policy`'s access counts and of
    the random walk's on the same world over the same number of steps (`walk_counts` already cut to the policy
    trace's steps, `trace_counts`), with those steps. Why cut the walk: a short trace leaves most states unread,
    which raises every measure, so a model's 100-step trace set beside the walk's 8,000 steps would compare lengths."""
    rows = []
    for key, counts in policy_counts.items():
        (family, n, seed), steps = key[:3], key[3]
        walk = walk_counts[key]
        rows.append(
            {
                "family": family,
                "n": n,
                "seed": seed,
                "steps": steps,
                "gini_a": gini(counts),
                "gini_b": gini(walk),
                "top10_share_a": top_share(counts, top_fraction),
                "top10_share_b": top_share(walk, top_fraction),
                "sigma_top10_a": sigma_top(counts, top_fraction),
                "sigma_top10_b": sigma_top(walk, top_fraction),
            }
        )
    return pd.DataFrame(rows)


def settings_at(s: StatsGroup, critical: float) -> StatsGroup:
    """`s` at the confidence whose one-sided alpha is `critical`, nudged up a billionth so that (1 - confidence) / 2
    does not round below a p the rule gives (k / 2001 with random flips: 12 / 2001 came back 1e-17 short); the next
    such p lies far above it."""
    return replace(s, confidence=1.0 - 2.0 * critical * (1.0 + 1e-9))


def concentration_claims(
    frame: pd.DataFrame,
    policy: str,
    s: StatsGroup,
    planned: Mapping[str, float] | None = None,
    levels: Mapping[str, object] | None = None,
) -> list[dict]:
    """The policy's concentration minus the random walk's on the same world and steps, > 0: one row per claim of
    `claim_specs.RANDOM_WALK_CONCENTRATION` (Gini, top-10% share, sigma_top10), worlds (family x seed) as units.
    No fit is needed, so a trace a model can afford decides it. `levels`: measure -> its test's level simulated on
    the twin (`power.stated_effects.<stated>.level`); a row is read at that critical p, its interval at the
    confidence that inverts it (`claim_specs.read_at`), and one without a level for its units is INCONCLUSIVE."""
    spec = [c.filled(policy=policy).at(scope=ALL) for c in claim_specs.RANDOM_WALK_CONCENTRATION]

    def compared(c: Claim) -> dict:
        a, b = frame[f"{c.metric}_a"], frame[f"{c.metric}_b"]
        diff = (a - b).dropna()
        fields = {"policy": policy, "a": a.mean(), "b": b.mean(), "worlds": len(diff)}  # the walk, not the role
        fields["steps"] = ", ".join(str(int(x)) for x in sorted(set(frame.steps)))
        level = (levels or {}).get(c.metric)
        critical, why = claim_specs.read_at(level, len(diff), s.alpha)
        fields["read"] = (
            f"read at p <= {critical:.4g} (the sign-flip rule's false HELD on the twin: {level.at_alpha:.1%} at "
            f"{s.alpha:g}, {level.false_held:.1%} here)"
            if critical is not None
            else f"not read: {why}"
        )
        if diff.empty:
            row = missing(claim_text(c.side, c.threshold), "no world")
        else:
            at = s if critical is None else settings_at(s, critical)
            row = compare(diff, _units(frame.loc[diff.index]), direction=c.side, threshold=c.threshold, settings=at)
            row = row.row()
            if critical is None and len(diff) >= s.min_units:  # enough worlds, a test of unknown level
                row |= {"verdict": INCONCLUSIVE, "reason": why}
        return {"unit": "world (family x seed)", **row, "evidence": evidence(c, **fields)}

    return claim_rows(spec, compared, planned=planned)
