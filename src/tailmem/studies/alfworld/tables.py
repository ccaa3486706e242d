"""ALFWorld tables: paper 1's memory arms (tokens per step, success, access audit) and paper 2's skill cells
(success overall, by family and over the chain, invalid actions, store growth, cost per role), and paper 2's
skill-side analyses (claims at the game unit, the store and the curation effort per task, running success by goal
family against the control). Every table says how many games ran of how many were listed.

Pure computation: frames in, frames out. What each table is (its columns, source, title and note) is its spec in
`studies/alfworld/data/alfworld.yaml` (`report.table_spec`); the words are filled by `studies.alfworld.text`, the figures drawn
by `studies.alfworld.figures`. The stage (`studies.alfworld.report`) reads the cells and writes the files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from tailmem.audit.concentration import concentration
from tailmem.audit.tailfit import fit_tail
from tailmem.report import claims as claims_builder
from tailmem.report.claims import NOT_PLAYED, Claim
from tailmem.report.table_spec import TableSpec, specs
from tailmem.settings.stats import StatsGroup
from tailmem.stats.compare import COLUMNS as COMPARE_COLUMNS
from tailmem.stats.compare import compare, missing
from tailmem.stats.paired_tests import sign_test
from tailmem.stats.verdict import INCONCLUSIVE, claim_text, verdict
from tailmem.studies.alfworld import claim_specs as specs_
from tailmem.studies.alfworld import text
from tailmem.studies.alfworld.play.games import FAMILIES, SHORT

SPECS: dict[str, TableSpec] = specs(text.FILE)

# One row per (arm, game): the columns of an episode record (play.episode.EpisodeRecord) plus `arm`.
EPISODE_COLUMNS = (
    "arm",
    "family",
    "loaded",
    "success",
    "steps",
    "invalid",
    "memory_tokens",
    "context_tokens",
    "accesses",
)
# One row per (protocol, variant, task): a chain's task rows (play.chain.to_rows) plus protocol and variant.
TASK_COLUMNS = (
    "protocol",
    "variant",
    "index",
    "family",
    "ran",
    "success",
    "steps",
    "invalid",
    "store_files",
    "store_bytes",
    "store_sources_max",
    "retrieval_chars",
    "curation_chars",
    "execution_tokens",
    "guidance_tokens",
)


def _require(df: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{what}: missing columns {missing}; expected {list(columns)}")


def _frame(name: str, rows: list[dict]) -> pd.DataFrame:
    """The rows of table `name` as a frame with its spec's columns; a row with other keys fails naming the table."""
    columns = list(SPECS[name].columns)
    if rows and list(rows[0]) != columns:
        raise KeyError(f"table {name}: rows have columns {list(rows[0])}; its spec ({text.FILE}) says {columns}")
    return pd.DataFrame(rows, columns=columns)


def _overflows(rows: pd.DataFrame) -> int:
    """Games lost because a prompt outgrew the model's context window (a run setting; 0 for records written
    before it was counted)."""
    return int(rows.context_overflow.fillna(False).astype(bool).sum()) if "context_overflow" in rows else 0


def _pct(x) -> float:
    return 100 * float(np.mean(x)) if len(x) else np.nan


def memory_tables(episodes: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, np.ndarray]]:
    """Per arm (in order of appearance): success, tokens per step, invalid actions and the access audit over
    (game, location) items; success per family; and each arm's access counts (for the rank-frequency plot)."""
    _require(episodes, EPISODE_COLUMNS, "memory episodes")
    rows, fam_rows, counts = [], [], {}
    for arm in pd.unique(episodes.arm):
        eps = episodes[episodes.arm == arm]
        ran = eps[eps.loaded.astype(bool)]
        steps = int(ran.steps.sum()) or 1
        c = np.array([n for acc in ran.accesses for n in acc.values()], dtype=float)
        counts[arm] = c
        conc = concentration(c) if c.size else None
        fit = fit_tail(c) if c.size else None
        rows.append(
            {
                "arm": arm,
                "games": len(eps),
                "ran": len(ran),
                "success_pct": _pct(ran.success),
                "steps_per_game": steps / max(len(ran), 1),
                "memory_tokens_per_step": ran.memory_tokens.sum() / steps,
                "prompt_tokens_per_step": ran.context_tokens.sum() / steps,
                "invalid_pct": 100 * ran.invalid.sum() / steps,
                "items": int(c.size),
                "gini": conc.gini if conc else np.nan,
                "top10_share": conc.top_share if conc else np.nan,
                "max_median": conc.max_median if conc else np.nan,
                "tail_fit": fit.status if fit else "",
                "alpha": getattr(fit, "alpha", np.nan) if fit else np.nan,
                "R_tpl_ln": getattr(fit, "R_tpl_ln", np.nan) if fit else np.nan,
                "context_overflows": _overflows(eps),
            }
        )
        for f in FAMILIES:
            fe = ran[ran.family == f]
            fam_rows.append({"arm": arm, "family": SHORT[f], "ran": len(fe), "success_pct": _pct(fe.success)})
    fam = pd.DataFrame(fam_rows).pivot(index="family", columns="arm", values="success_pct").reset_index()
    return _frame("memory", rows), SPECS["memory_family"].check(fam), counts


def skill_tables(tasks: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per cell (protocol x variant, in order of appearance): success overall and in the first and last quarter
    of the chain, invalid actions, store growth, cost per role and the no-leakage check; success per family."""
    _require(tasks, TASK_COLUMNS, "skill tasks")
    rows, fam_rows = [], []
    for (p, v), t in tasks.groupby(["protocol", "variant"], sort=False):
        t = t.sort_values("index")
        ran = t[t.ran.astype(bool)]
        n = len(t)
        q = max(n // 4, 1)
        steps = max(int(ran.steps.sum()), 1)
        rows.append(
            {
                "protocol": p,
                "variant": v,
                "tasks": n,
                "ran": len(ran),
                "success_pct": _pct(ran.success),
                "first_quarter_pct": _pct(ran[ran["index"] < q].success),
                "last_quarter_pct": _pct(ran[ran["index"] >= n - q].success),
                "invalid_pct": 100 * ran.invalid.sum() / steps,
                "steps_per_task": ran.steps.mean() if len(ran) else np.nan,
                "store_files": int(t.store_files.iloc[-1]) if n else 0,
                "store_kb": t.store_bytes.iloc[-1] / 1024 if n else 0.0,
                "retrieval_chars_per_task": ran.retrieval_chars.mean() if len(ran) else np.nan,
                "curation_chars_per_task": ran.curation_chars.mean() if len(ran) else np.nan,
                "execution_tokens_per_task": ran.execution_tokens.mean() if len(ran) else np.nan,
                "guidance_tokens_per_step": (ran.guidance_tokens * ran.steps).sum() / steps,
                "leakage": "yes" if bool((t.store_sources_max >= t["index"]).any()) else "no",
                "context_overflows": _overflows(t),
            }
        )
        for f in FAMILIES:
            fe = ran[ran.family == f]
            fam_rows.append({"cell": f"{p}/{v}", "family": SHORT[f], "success_pct": _pct(fe.success)})
    fam = pd.DataFrame(fam_rows).pivot(index="family", columns="cell", values="success_pct").reset_index()
    return _frame("skills", rows), SPECS["skills_family"].check(fam)


# -- paper 2's skill-side analyses ---------------------------------------------------------------------------------
# One row per (protocol, variant, task) for the claims and the running-success curves (`index` = position in the
# protocol's chain order, `id` = the game, which pairs cells).
PAIR_COLUMNS = ("protocol", "variant", "index", "id", "family", "ran", "success")
CLAIM_COLUMNS = (
    "claim",
    "protocol",
    "arm",
    "baseline",
    "metric",
    "unit",
    *claims_builder.with_power(COMPARE_COLUMNS),  # the design check's planned power beside the verdict
    "sign_p_1s",
    "evidence",
    "paper",
)
BASELINE = "no_store"


def _one_sided_sign(diff: np.ndarray, direction: str) -> float:
    """Paper 2's test (D.1): the sign test about 0, one-sided in the claim's direction (nan for a tie claim)."""
    if direction == "within" or diff.size == 0:
        return float("nan")
    return sign_test(diff, alternative=direction).p


def paired_games(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Two cells on the games both played (loaded), one row per (chain seed, game): `seed`, `success_a`,
    `success_b`, `family` (a frame without a `seed` column is chain seed 0)."""
    a, b = (df[df.ran.astype(bool)].assign(seed=df.seed if "seed" in df else 0) for df in (a, b))
    both = a[["seed", "id", "family", "success"]].merge(
        b[["seed", "id", "success"]], on=["seed", "id"], suffixes=("_a", "_b")
    )
    return both.astype({"success_a": float, "success_b": float})


def _compared(settings: StatsGroup, c: Claim, a: pd.DataFrame, b: pd.DataFrame, min_tie_games: int = 1) -> dict:
    """A claim's columns after `claim` and `protocol`: cell `a` (its arm) against cell `b` (its baseline), paired
    on the games both played."""
    direction, threshold = c.side, c.threshold
    head = {"arm": c.arm, "baseline": c.baseline, "metric": c.metric, "unit": c.unit, "paper": c.paper}
    absent = [name for name, df in ((c.arm, a), (c.baseline, b)) if not len(df)]
    if absent:
        return (
            head
            | missing(claim_text(direction, threshold), "a cell was not run")
            | {"sign_p_1s": float("nan"), "evidence": f"{' and '.join(absent)}: no tasks in this run"}
            | NOT_PLAYED
        )
    p = paired_games(a, b)
    if not len(p):
        return (
            head
            | missing(claim_text(direction, threshold), "no shared game")
            | {"sign_p_1s": float("nan"), "evidence": "no game played by both cells"}
        )
    d = (p.success_a - p.success_b).to_numpy()
    # one chain: games are independent yes/no pairs; several chains: each chain's order is shared by its games,
    # so the chain seeds are the independent units (stats.compare)
    cmp = compare(d, p.seed.to_numpy(), direction=direction, threshold=threshold, settings=settings, outcome="binary")
    margin = f"; margin {threshold:g} (alfworld.claims.order_margin)" if direction == "within" else ""
    evidence = (
        f"success {c.arm} {100 * p.success_a.mean():.1f}% vs {c.baseline} {100 * p.success_b.mean():.1f}% over "
        f"{len(p)} games both played{_over_seeds(p)}; {int((d > 0).sum())} won only by {c.arm}, "
        f"{int((d < 0).sum())} only by {c.baseline}{margin}"
    )
    row = head | cmp.row() | {"sign_p_1s": _one_sided_sign(d, direction), "evidence": evidence}
    if direction == "within" and len(p) < min_tie_games:  # a zero-width interval on a few games is no tie
        row |= {
            "verdict": INCONCLUSIVE,
            "reason": f"a tie needs at least {min_tie_games} games",
            "evidence": f"{evidence}; a tie needs at least {min_tie_games} games (alfworld.claims.min_tie_games)",
        }
    return row


def _over_seeds(p: pd.DataFrame) -> str:
    n = p.seed.nunique()
    return f" (over {n} chain seeds)" if n > 1 else ""


def skill_claims(
    tasks: pd.DataFrame,
    settings: StatsGroup,
    order_margin: float,
    baseline: str = BASELINE,
    min_tie_games: int = 1,
    planned: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Paper 2's skill-setting claims on our chains (`claim_specs.ALFWORLD_VS_CONTROL`, `ALFWORLD_ORDER` read over
    the cells the run holds), one paired comparison at the game unit per row: every store variant wins more games
    than the control (`baseline`) under each protocol ("> 0"); and, where the reversed chain ran, each variant's
    success does not depend on the order of the chain: full chain and reversed chain within `order_margin` (a share
    of games) on the same games. `planned`: the design check's planned powers (`tailmem.power.stated.planned_power`
    of the study's `design_rows.row`)."""
    _require(tasks, PAIR_COLUMNS, "skill tasks")
    protocols = list(pd.unique(tasks.protocol))
    cell = {(p, v): t for (p, v), t in tasks.groupby(["protocol", "variant"], sort=False)}
    empty = tasks.iloc[:0]
    spec, cells = [], {}  # the claims in row order; (words, protocol) -> the two cells each compares
    for p in protocols:
        for v in (v for v in pd.unique(tasks[tasks.protocol == p].variant) if v != baseline):
            c = replace(
                specs_.ALFWORLD_VS_CONTROL.filled(variant=v, baseline=baseline), paper=text.paper_vs_control(p, v)
            )
            spec.append(c.at(protocol=p))
            cells[c.words, p] = (cell.get((p, v), empty), cell.get((p, baseline), empty))
    if {"full_chain", "reversed_chain"} <= set(protocols):
        both = "full_chain vs reversed_chain"
        for v in (v for v in pd.unique(tasks[tasks.protocol == "full_chain"].variant) if v != baseline):
            c = replace(specs_.ALFWORLD_ORDER.filled(variant=v), threshold=order_margin, paper=text.PAPER_REVERSED)
            spec.append(c.at(protocol=both))
            cells[c.words, both] = (cell.get(("full_chain", v), empty), cell.get(("reversed_chain", v), empty))

    def one(c: Claim) -> dict:
        return _compared(settings, c, *cells[c.words, c.columns["protocol"]], min_tie_games)

    df = SPECS["claims"].check(claims_builder.build(spec, one, columns=CLAIM_COLUMNS, planned=planned))
    return df.astype({"n_units": "Int64", "n_seeds": "Int64"})


# One row per (protocol, variant, task): the hierarchy panel (tailmem.fsmem.hierarchy.measure) of the store the
# task was given, plus the task's position and family.
STORE_COLUMNS = SPECS["skills_store"].columns


def store_table(stores: pd.DataFrame) -> pd.DataFrame:
    """The per-task store table: one row per (protocol, variant, task), control cells left out (no store)."""
    _require(stores, STORE_COLUMNS, "skill stores")
    out = stores[stores.variant != BASELINE][list(STORE_COLUMNS)]
    return out.sort_values(["protocol", "variant", "index"], kind="stable").reset_index(drop=True)


def erosion_table(stores: pd.DataFrame) -> pd.DataFrame:
    """Per cell: how the taxonomy metrics move as the store grows, as the Spearman correlation of each metric
    with the number of files over the chain's tasks (negative = the metric erodes with growth)."""
    from scipy.stats import spearmanr

    table = store_table(stores)
    metrics = (
        "sections",
        "mean_leaf_depth",
        "gini_bytes",
        "top_file_share",
        "b1_label_distinguishability",
        "b2_sibling_cohesion",
        "b3_scope_leakage",
        "b4_tree_content_spearman",
    )
    rows = []
    for (p, v), t in table.groupby(["protocol", "variant"], sort=False):
        row = {
            "protocol": p,
            "variant": v,
            "tasks": len(t),
            "final_files": int(t.files.iloc[-1]),
            "final_kb": t.bytes.iloc[-1] / 1024,
        }
        for m in metrics:
            ok = t[["files", m]].dropna()
            row[f"rho_{m}"] = (
                float(spearmanr(ok.files, ok[m]).statistic)
                if len(ok) >= 3 and ok.files.nunique() > 1 and ok[m].nunique() > 1
                else np.nan
            )
        rows.append(row)
    return _frame("skills_erosion", rows)


# One row per (protocol, variant, task) of what curating the task cost: characters written, store files created or
# changed and bytes added (from the snapshots before and after curating), and, with a model curator, its rounds and
# tool calls (nan for the programmatic curator, which makes one deterministic pass).
EFFORT_COLUMNS = SPECS["skills_effort"].columns
EFFORT_METRICS = ("curation_chars", "files_touched", "rounds", "tool_calls")


def effort_table(effort: pd.DataFrame) -> pd.DataFrame:
    _require(effort, EFFORT_COLUMNS, "curation effort")
    out = effort[effort.variant != BASELINE][list(EFFORT_COLUMNS)]
    return out.sort_values(["protocol", "variant", "index"], kind="stable").reset_index(drop=True)


def slope(x, y, confidence: float) -> dict:
    """Least-squares slope of y on x with its t interval and two-sided p-value; nan when fewer than 3 points or
    x does not vary."""
    from scipy import stats

    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    nan = {"slope": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "n": int(x.size)}
    if x.size < 3 or np.ptp(x) == 0:
        return nan
    if np.ptp(y) == 0:
        return {**nan, "slope": 0.0, "ci_low": 0.0, "ci_high": 0.0, "p": 1.0}
    fit = stats.linregress(x, y)
    half = stats.t.ppf(0.5 + confidence / 2, x.size - 2) * fit.stderr
    return {
        "slope": float(fit.slope),
        "ci_low": float(fit.slope - half),
        "ci_high": float(fit.slope + half),
        "p": float(fit.pvalue),
        "n": int(x.size),
    }


def effort_trend(effort: pd.DataFrame, settings: StatsGroup) -> pd.DataFrame:
    """Per cell and effort metric: the slope of the per-task effort over the task's position in the chain, its
    interval, and whether curation amortises (`amortises` = HELD when the whole interval is below 0; paper 2,
    Figure 11, found curation effort growing from about 6 to 12 rounds per task instead)."""
    table = effort_table(effort)
    rows = []
    for (p, v), t in table.groupby(["protocol", "variant"], sort=False):
        for m in EFFORT_METRICS:
            ok = t[["index", m]].dropna()
            if not len(ok):
                continue
            s = slope(ok["index"], ok[m], settings.confidence)
            q = max(len(ok) // 4, 1)
            rows.append(
                {
                    "protocol": p,
                    "variant": v,
                    "metric": m,
                    "tasks": s["n"],
                    "first_quarter_mean": float(ok[m].iloc[:q].mean()),
                    "last_quarter_mean": float(ok[m].iloc[-q:].mean()),
                    "slope_per_task": s["slope"],
                    "ci_low": s["ci_low"],
                    "ci_high": s["ci_high"],
                    "p": s["p"],
                    "amortises": verdict(s["ci_low"], s["ci_high"], "less", 0.0),
                }
            )
    return _frame("skills_effort_trend", rows)


def family_running(tasks: pd.DataFrame, baseline: str = BASELINE) -> pd.DataFrame:
    """Running success per goal family over the chain, each store variant against the control on the same games
    (paper 2, Figure 12): one row per (protocol, variant, task the variant and the control both played), with the
    family's success so far (%) of each and their difference in points."""
    _require(tasks, PAIR_COLUMNS, "skill tasks")
    rows = []
    for p in pd.unique(tasks.protocol):
        at = tasks[tasks.protocol == p]
        base = at[at.variant == baseline]
        for v in [v for v in pd.unique(at.variant) if v != baseline]:
            t = at[at.variant == v]
            both = paired_games(t, base).merge(t[["id", "index"]], on="id").sort_values("index", kind="stable")
            for f, fe in both.groupby("family", sort=False):
                run_a = fe.success_a.expanding().mean() * 100
                run_b = fe.success_b.expanding().mean() * 100
                for k, ra, rb, n in zip(fe["index"], run_a, run_b, range(1, len(fe) + 1)):
                    rows.append(
                        {
                            "protocol": p,
                            "variant": v,
                            "family": SHORT.get(f, f),
                            "index": int(k),
                            "family_tasks": n,
                            "running_pct": float(ra),
                            "baseline_running_pct": float(rb),
                            "difference_points": float(ra - rb),
                        }
                    )
    return _frame("skills_family_running", rows).sort_values(
        ["protocol", "variant", "index"], kind="stable", ignore_index=True
    )
