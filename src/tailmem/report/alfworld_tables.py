"""ALFWorld tables and figures: paper 1's memory arms (tokens per step, success, access audit) and paper 2's
skill cells (success overall, by family and over the chain, invalid actions, store growth, cost per role).
Every table says how many games ran of how many were listed.

Pure formatting: frames in, frames and figures out. The stage (`stages/alfworld.report`) reads the cells, the
config and writes the files with their provenance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tailmem.alfworld.games import FAMILIES, SHORT
from tailmem.audit.concentration import concentration
from tailmem.audit.tailfit import fit_tail
from tailmem.report import paper2_values as paper2
from tailmem.stats.compare import COLUMNS as COMPARE_COLUMNS
from tailmem.stats.compare import compare, missing
from tailmem.stats.paired_tests import sign_test
from tailmem.stats.settings import StatsSettings
from tailmem.stats.verdict import INCONCLUSIVE, claim_text, verdict

# One row per (arm, game): the columns of an episode record (alfworld.episode.EpisodeRecord) plus `arm`.
EPISODE_COLUMNS = ("arm", "family", "loaded", "success", "steps", "invalid", "memory_tokens", "context_tokens",
                   "accesses")
# One row per (protocol, variant, task): a chain's task rows (alfworld.chain.to_rows) plus protocol and variant.
TASK_COLUMNS = ("protocol", "variant", "index", "family", "ran", "success", "steps", "invalid", "store_files",
                "store_bytes", "store_sources_max", "retrieval_chars", "curation_chars", "execution_tokens",
                "guidance_tokens")


def _require(df: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{what}: missing columns {missing}; expected {list(columns)}")


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
        rows.append({
            "arm": arm, "games": len(eps), "ran": len(ran),
            "success_pct": _pct(ran.success),
            "steps_per_game": steps / max(len(ran), 1),
            "memory_tokens_per_step": ran.memory_tokens.sum() / steps,
            "prompt_tokens_per_step": ran.context_tokens.sum() / steps,
            "invalid_pct": 100 * ran.invalid.sum() / steps,
            "items": int(c.size), "gini": conc.gini if conc else np.nan,
            "top10_share": conc.top_share if conc else np.nan,
            "max_median": conc.max_median if conc else np.nan,
            "tail_fit": fit.status if fit else "",
            "alpha": getattr(fit, "alpha", np.nan) if fit else np.nan,
            "R_tpl_ln": getattr(fit, "R_tpl_ln", np.nan) if fit else np.nan,
        })
        for f in FAMILIES:
            fe = ran[ran.family == f]
            fam_rows.append({"arm": arm, "family": SHORT[f], "ran": len(fe), "success_pct": _pct(fe.success)})
    fam = pd.DataFrame(fam_rows).pivot(index="family", columns="arm", values="success_pct").reset_index()
    return pd.DataFrame(rows), fam, counts


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
        rows.append({
            "protocol": p, "variant": v, "tasks": n, "ran": len(ran),
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
        })
        for f in FAMILIES:
            fe = ran[ran.family == f]
            fam_rows.append({"cell": f"{p}/{v}", "family": SHORT[f], "success_pct": _pct(fe.success)})
    fam = pd.DataFrame(fam_rows).pivot(index="family", columns="cell", values="success_pct").reset_index()
    return pd.DataFrame(rows), fam


def titles(subset: str) -> dict[str, str]:
    """Table stem suffix -> title."""
    return {
        "memory": f"ALFWorld {subset}: observation memory, Graph Memory vs CTMC",
        "memory_family": f"ALFWorld {subset}: success (%) per goal family and memory arm",
        "skills": f"ALFWorld {subset}: skill setting (paper 2), five variants x two protocols",
        "skills_family": f"ALFWorld {subset}: skill-setting success (%) per goal family",
    }


MEMORY_NAMES = {"graph_memory": "Graph Memory", "ctmc": "CTMC"}

# Paper 2's skill-setting variants (alfworld.curator, alfworld.retriever), for captions and notes.
VARIANT_WORDS = {
    "no_store": "no store (control)",
    "episode_log": "every trajectory kept verbatim, BM25 top-k files handed over",
    "curated_skills": "one procedure per goal family from successes, lessons from failures",
    "curated_skills_memory": "curated skills plus where objects of each kind were found",
    "guidance_synthesis": "the same store, and the retriever writes task-specific guidance (GS)",
}
PROTOCOL_WORDS = {
    "full_chain": "one chain over all tasks in a fixed order; the store is never reset",
    "three_chain": "the same order cut into three consecutive chains; the store is reset at each",
    "reversed_chain": "one chain over all tasks in the reverse order; the store is never reset",
}


def arm_words(arms: dict) -> dict[str, str]:
    """Arm name -> what it is, from `alfworld.arms` ({name, budget, ...} per arm): which memory controller and its
    budget of memory tokens per step; an arm without a budget holds every remembered location and object."""
    out = {}
    for arm, spec in arms.items():
        name = MEMORY_NAMES.get(spec.get("name"), spec.get("name", arm))
        budget = spec.get("budget")
        out[arm] = (f"{name}, budget {budget} memory tokens per step" if budget is not None
                    else f"{name} without a budget: every remembered location and object")
    return out


def _arm_sentence(arms: dict[str, str]) -> str:
    return "Arms: " + "; ".join(f"`{a}` = {w}" for a, w in arms.items()) + "." if arms else ""


AUDIT_WORDS = ("Access audit over (game, location) items, an access = the item placed into the executor's prompt: "
               "`items` = distinct items accessed; `gini` = Gini coefficient of the access counts (0 = even, 1 = all "
               "on one item); `top10_share` = share of accesses taken by the top 10% of items; `max_median` = the "
               "most-accessed item's count over the median count; `tail_fit` = the power-law tail fit's outcome "
               "(`degenerate`: fewer than 10 distinct counts; `tail_too_small`: fewer than 50 points in the tail; "
               "only `ok` gives numbers); `alpha` = fitted power-law exponent; `R_tpl_ln` = log-likelihood ratio of "
               "a truncated power law against a log-normal on the tail (> 0 favours the truncated power law).")


def notes(executor: str, curator: str, retriever: str, max_steps: int, encoding: str,
          excluded: int = 0, arms: dict[str, str] | None = None) -> dict[str, str]:
    """Table stem suffix -> the note under its title; `excluded` = listed games never played (games.EXCLUDED);
    `arms` = `arm_words` of the configured `alfworld.arms`."""
    left_out = (f" {excluded} listed game(s) excluded: alfworld's expert cannot win them (games.EXCLUDED)."
                if excluded else "")
    arms_text = _arm_sentence(arms or {})
    offline = ("programmatic" in executor)
    scripted = (" The executor is a scripted (programmatic) agent, not a language model: success and invalid "
                "actions measure the memory it is given, and are not comparable with paper 1's or paper 2's "
                "model-driven numbers." if offline else "")
    variants = "; ".join(f"`{v}` = {w}" for v, w in VARIANT_WORDS.items())
    protocols = "; ".join(f"`{p}` = {w}" for p, w in PROTOCOL_WORDS.items())
    return {
        "memory": (f"Paper 1's observation memory on ALFWorld: one row per memory arm, every game played once. "
                   f"Executor: {executor}; at most {max_steps} actions per game; `ran` = games that loaded (of "
                   f"`games`); `success_pct` = games won (%); `invalid_pct` = actions the game rejected (% of "
                   f"actions). Tokens counted with {encoding}: `memory_tokens_per_step` = the memory block, "
                   f"`prompt_tokens_per_step` = the whole prompt. {arms_text} {AUDIT_WORDS}{left_out}{scripted}"),
        "memory_family": (f"Success (% of games won) of each memory arm within each of ALFWorld's six goal "
                          f"families (`put` = pick and place, `puttwo` = two objects, `examine` = look at an object "
                          f"in light, `clean`/`heat`/`cool` = do that then place). Executor: {executor}. "
                          f"{arms_text} A family with few games (one at smoke size) swings between 0 and 100; "
                          f"`-` = no game of that family ran.{scripted}"),
        "skills": (f"Paper 2's skill setting: after each task a curator writes what it taught into a markdown "
                   f"store; before the next, a retriever hands the executor guidance from it. Executor: {executor}; "
                   f"curator: {curator}; retriever: {retriever}. Variants: {variants}. Protocols: {protocols}. "
                   "`first_quarter_pct`/`last_quarter_pct` = success over the first and last quarter of the chain "
                   "(learning along the chain). Costs per role: retrieval = store characters read, curation = "
                   "characters written, execution = executor prompt tokens; `guidance_tokens_per_step` = tokens of "
                   "the handed-over guidance. `leakage` = a task's store held that task or a later one (must be "
                   f"`no`).{left_out}{scripted}"),
        "skills_family": (f"Success (% of tasks won) of each skill-setting cell (`protocol/variant`) within each "
                          f"goal family (`put` = pick and place, `puttwo` = two objects, `examine` = look at an "
                          f"object in light, `clean`/`heat`/`cool` = do that then place). Executor: {executor}; "
                          f"curator: {curator}; retriever: {retriever}. Protocols: {protocols}. `-` = no task of "
                          f"that family ran.{scripted}"),
    }


def skills_growth_figure(tasks: pd.DataFrame, protocol: str = "full_chain", subset: str = "", executor: str = ""):
    """Running success, store files and store size over one protocol's chain, a line per variant. Variants often
    share every point (the same executor wins the same games): each gets its own colour, marker and line style
    and a small horizontal offset, so coinciding lines stay visible."""
    import matplotlib.pyplot as plt

    from tailmem.report.plots import offset, series_style

    chain = tasks[tasks.protocol == protocol]
    variants = list(pd.unique(chain.variant))
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), layout="constrained")
    for k, v in enumerate(variants):
        t = chain[chain.variant == v].sort_values("index")
        ok = t[t.ran.astype(bool)]
        style = series_style(k)
        axes[0].plot(offset(ok["index"] + 1, k, len(variants)), ok.success.astype(float).expanding().mean() * 100,
                     label=v, **style)
        axes[1].plot(offset(t["index"] + 1, k, len(variants)), t.store_files, label=v, **style)
        axes[2].plot(offset(t["index"] + 1, k, len(variants)), t.store_bytes / 1024, label=v, **style)
    panels = (("running success", "success so far (% of tasks)"), ("store files", "files in the store (count)"),
              ("store size", "store size (KB)"))
    for ax, (title, ylabel) in zip(axes, panels):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("task position in the chain")
        ax.set_ylabel(ylabel)
    axes[0].legend(fontsize=8, title="variant", title_fontsize=8)
    who = f", executor {executor}" if executor else ""
    fig.suptitle(f"ALFWorld {subset} skill setting, {protocol.replace('_', ' ')}{who}".replace("  ", " "),
                 fontsize=11)
    words = PROTOCOL_WORDS.get(protocol, protocol)
    caption = (f"{protocol.replace('_', ' ').capitalize()}: {words}. Variants: "
               + "; ".join(f"{v} = {VARIANT_WORDS.get(v, v)}" for v in variants)
               + ". Lines are offset by up to +-0.15 task so that variants with the same values stay visible.")
    fig.text(0.0, -0.02, caption, fontsize=8, wrap=True, va="top")
    return fig


def memory_figure(memory: pd.DataFrame, counts: dict[str, np.ndarray], subset: str = "", executor: str = "",
                  arms: dict[str, str] | None = None):
    """Access rank-frequency per arm (left), and memory tokens per step per arm (right); `arms` =
    `arm_words` of the configured `alfworld.arms` explains each arm in the caption."""
    import matplotlib.pyplot as plt

    from tailmem.report.plots import rank_frequency, series_style

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    for k, (arm, c) in enumerate(counts.items()):
        if np.sum(c) > 0:
            rank_frequency(axes[0], c, arm, **series_style(k))
    axes[0].set_title("access rank-frequency", fontsize=10)
    axes[0].set_xlabel("rank of the (game, location) item, most accessed first")
    axes[0].set_ylabel("share of all accesses")
    if axes[0].lines:
        axes[0].legend(fontsize=8, title="memory arm", title_fontsize=8)
    axes[1].bar(memory.arm, memory.memory_tokens_per_step, color=[series_style(k)["color"] for k in range(len(memory))])
    axes[1].set_title("memory block size", fontsize=10)
    axes[1].set_xlabel("memory arm")
    axes[1].set_ylabel("memory tokens per step")
    who = f", executor {executor}" if executor else ""
    fig.suptitle(f"ALFWorld {subset} observation memory: access concentration and cost per arm{who}"
                 .replace("  ", " "), fontsize=11)
    if arms:
        fig.text(0.0, -0.02, _arm_sentence(arms) + " An access = a (game, location) item placed into the prompt.",
                 fontsize=8, wrap=True, va="top")
    return fig


# -- paper 2's skill-side analyses (issue 15): claims at the game unit, the store and the curation effort per task,
# running success by goal family against the control ----------------------------------------------------------------

# One row per (protocol, variant, task) for the claims and the running-success curves (`index` = position in the
# protocol's chain order, `id` = the game, which pairs cells).
PAIR_COLUMNS = ("protocol", "variant", "index", "id", "family", "ran", "success")
CLAIM_COLUMNS = ("claim", "protocol", "arm", "baseline", "metric", "unit", *COMPARE_COLUMNS, "sign_p_1s", "evidence",
                 "paper")
BASELINE = "no_store"
# Paper 2's number for the comparison a row makes, when its summary gives one (report.paper2_values).
_CHAIN = paper2.ALFWORLD_CHAIN
_PAPER_CHAIN = (f"§4.4: the {_CHAIN['tasks']}-task chain, mini-tier Episode log: first {_CHAIN['window_tasks']} "
                f"tasks {_CHAIN['first_window_pct']:g}% -> last {_CHAIN['window_tasks']} {_CHAIN['last_window_pct']:g}%"
                " (a window comparison along the chain, not a paired one against no store)")
_PAPER_REVERSED = (f"§4.4: reversed accumulation, nano execution from {paper2.ALFWORLD_REVERSED_NANO_PCT[0]:g}% to "
                   f"{paper2.ALFWORLD_REVERSED_NANO_PCT[1]:g}%")
_PAPER_GS = ("D.5: Curated skills+mem (GS) over the Episode log at gpt-4.1-mini by "
             + ", ".join(f"{k} {v:g}" for k, v in paper2.ALFWORLD_GS_LEAD_MINI_POINTS.items()) + " points")
PAPER_NONE = "the summary gives no number for this comparison"


def _paper_vs_control(protocol: str, variant: str) -> str:
    if protocol == "reversed_chain":
        return _PAPER_REVERSED
    if variant == "episode_log":
        return _PAPER_CHAIN
    if variant == "guidance_synthesis":
        return _PAPER_GS
    return PAPER_NONE


def _one_sided_sign(diff: np.ndarray, direction: str) -> float:
    """Paper 2's test (D.1): the sign test about 0, one-sided in the claim's direction (nan for a tie claim)."""
    if direction == "within" or diff.size == 0:
        return float("nan")
    return sign_test(diff, alternative=direction).p


def paired_games(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Two cells on the games both played (loaded), one row per (chain seed, game): `seed`, `success_a`,
    `success_b`, `family` (a frame without a `seed` column is chain seed 0)."""
    a, b = (df[df.ran.astype(bool)].assign(seed=df.seed if "seed" in df else 0) for df in (a, b))
    both = a[["seed", "id", "family", "success"]].merge(b[["seed", "id", "success"]], on=["seed", "id"],
                                                         suffixes=("_a", "_b"))
    return both.astype({"success_a": float, "success_b": float})


def _compared(settings: StatsSettings, claim: str, protocol: str, arm: str, baseline: str, a: pd.DataFrame,
              b: pd.DataFrame, direction: str, threshold: float, paper_text: str, min_tie_games: int = 1) -> dict:
    head = {"claim": claim, "protocol": protocol, "arm": arm, "baseline": baseline, "metric": "success",
            "unit": "game", "paper": paper_text}
    absent = [name for name, df in ((arm, a), (baseline, b)) if not len(df)]
    if absent:
        return head | missing(claim_text(direction, threshold), "a cell was not run") | {
            "sign_p_1s": float("nan"), "evidence": f"{' and '.join(absent)}: no tasks in this run"}
    p = paired_games(a, b)
    if not len(p):
        return head | missing(claim_text(direction, threshold), "no shared game") | {
            "sign_p_1s": float("nan"), "evidence": "no game played by both cells"}
    d = (p.success_a - p.success_b).to_numpy()
    cmp = compare(d, p.seed.to_numpy(), direction=direction, threshold=threshold, settings=settings)
    margin = f"; margin {threshold:g} (alfworld.claims.order_margin)" if direction == "within" else ""
    evidence = (f"success {arm} {100 * p.success_a.mean():.1f}% vs {baseline} {100 * p.success_b.mean():.1f}% over "
                f"{len(p)} games both played{_over_seeds(p)}; {int((d > 0).sum())} won only by {arm}, {int((d < 0).sum())} only by "
                f"{baseline}{margin}")
    row = head | cmp.row() | {"sign_p_1s": _one_sided_sign(d, direction), "evidence": evidence}
    if direction == "within" and len(p) < min_tie_games:  # a zero-width interval on a few games is no tie
        row |= {"verdict": INCONCLUSIVE, "reason": f"a tie needs at least {min_tie_games} games",
                "evidence": f"{evidence}; a tie needs at least {min_tie_games} games (alfworld.claims.min_tie_games)"}
    return row


def _over_seeds(p: pd.DataFrame) -> str:
    n = p.seed.nunique()
    return f" (over {n} chain seeds)" if n > 1 else ""


def skill_claims(tasks: pd.DataFrame, settings: StatsSettings, order_margin: float,
                 baseline: str = BASELINE, min_tie_games: int = 1) -> pd.DataFrame:
    """Paper 2's skill-setting claims on our chains, one paired comparison at the game unit per row: every store
    variant wins more games than the control (`baseline`) under each protocol ("> 0"); and, where the reversed
    chain ran, each variant's success does not depend on the order of the chain: full chain and reversed chain
    within `order_margin` (a share of games) on the same games."""
    _require(tasks, PAIR_COLUMNS, "skill tasks")
    rows = []
    protocols = list(pd.unique(tasks.protocol))
    cell = {(p, v): t for (p, v), t in tasks.groupby(["protocol", "variant"], sort=False)}
    empty = tasks.iloc[:0]
    for p in protocols:
        variants = [v for v in pd.unique(tasks[tasks.protocol == p].variant) if v != baseline]
        for v in variants:
            rows.append(_compared(settings, f"A store ({v}) wins more games than no store", p, v, baseline,
                                  cell.get((p, v), empty), cell.get((p, baseline), empty), "greater", 0.0,
                                  _paper_vs_control(p, v)))
    if {"full_chain", "reversed_chain"} <= set(protocols):
        for v in pd.unique(tasks[tasks.protocol == "full_chain"].variant):
            if v == baseline:
                continue
            rows.append(_compared(settings, f"The order of the chain does not change success ({v})",
                                  "full_chain vs reversed_chain", f"full_chain/{v}", f"reversed_chain/{v}",
                                  cell.get(("full_chain", v), empty), cell.get(("reversed_chain", v), empty),
                                  "within", order_margin, _PAPER_REVERSED, min_tie_games))
    df = pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))
    return df.astype({"n_units": "Int64", "n_seeds": "Int64"})


def claims_note(executor: str, settings: StatsSettings, order_margin: float, min_tie_games: int = 1,
                seeds: int = 1) -> str:
    offline = "programmatic" in executor
    level = (" Offline the executor is a scripted (programmatic) agent, not a language model, so success levels "
             "are not comparable with paper 2's (`paper`); only the direction of a comparison carries over, never "
             "its size." if offline else
             " Paper 2's numbers (`paper`) come from its own models and 140-task chain; compare directions, not "
             "levels.")
    levels = (f"{seeds} chain seeds (alfworld.seeds) resampled first, then games within each" if seeds > 1
              else "one chain seed (alfworld.seeds), so no seed level")
    return (f"Unit = a game both cells played (loaded) in the same chain seed; estimate = mean over those games of "
            f"success(arm) - success(baseline), i.e. the share of games won minus the control's; "
            f"{100 * settings.confidence:g}% paired bootstrap over games ({settings.resamples} replicates, seed "
            f"{settings.seed}; {levels}; exact up to 15 games, `ci_method`). p_held, p_not_held: one-sided "
            f"sign-flip tests of the mean against the claim's threshold (two one-sided tests against the margin for "
            f"a tie); HELD / NOT HELD need the interval, the matching p <= {settings.alpha:g} and at least "
            f"{settings.min_units} games (stats.min_units), else INCONCLUSIVE with the `reason`. sign_p_1s: the "
            f"one-sided sign test paper 2 reports (D.1), in the claim's direction, a labelled extra. Order rows pair the full chain "
            f"with the reversed one (the same games, the store never reset) within margin {order_margin:g} "
            f"(alfworld.claims.order_margin), on at least {min_tie_games} games (alfworld.claims.min_tie_games). "
            f"Executor: {executor}. A row with a cell that was not run is "
            f"INCONCLUSIVE with the reason in `evidence`; at smoke size (6 games) intervals are wide or unbounded.{level}")


# One row per (protocol, variant, task): the hierarchy panel (tailmem.fsmem.hierarchy.measure) of the store the
# task was given, plus the task's position and family.
STORE_COLUMNS = ("protocol", "variant", "index", "id", "family", "files", "folders", "sections", "bytes",
                 "mean_leaf_depth", "max_fanout", "gini_bytes", "top_file_share", "b1_label_distinguishability",
                 "b2_sibling_cohesion", "b3_scope_leakage", "b4_tree_content_spearman")


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
    metrics = ("sections", "mean_leaf_depth", "gini_bytes", "top_file_share", "b1_label_distinguishability",
               "b2_sibling_cohesion", "b3_scope_leakage", "b4_tree_content_spearman")
    rows = []
    for (p, v), t in table.groupby(["protocol", "variant"], sort=False):
        row = {"protocol": p, "variant": v, "tasks": len(t), "final_files": int(t.files.iloc[-1]),
               "final_kb": t.bytes.iloc[-1] / 1024}
        for m in metrics:
            ok = t[["files", m]].dropna()
            row[f"rho_{m}"] = (float(spearmanr(ok.files, ok[m]).statistic)
                               if len(ok) >= 3 and ok.files.nunique() > 1 and ok[m].nunique() > 1 else np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


# One row per (protocol, variant, task) of what curating the task cost: characters written, store files created or
# changed and bytes added (from the snapshots before and after curating), and, with a model curator, its rounds and
# tool calls (nan for the programmatic curator, which makes one deterministic pass).
EFFORT_COLUMNS = ("protocol", "variant", "index", "id", "family", "success", "curation_chars", "files_touched",
                  "bytes_added", "rounds", "tool_calls")
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
    return {"slope": float(fit.slope), "ci_low": float(fit.slope - half), "ci_high": float(fit.slope + half),
            "p": float(fit.pvalue), "n": int(x.size)}


def effort_trend(effort: pd.DataFrame, settings: StatsSettings) -> pd.DataFrame:
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
            rows.append({"protocol": p, "variant": v, "metric": m, "tasks": s["n"],
                         "first_quarter_mean": float(ok[m].iloc[:q].mean()),
                         "last_quarter_mean": float(ok[m].iloc[-q:].mean()),
                         "slope_per_task": s["slope"], "ci_low": s["ci_low"], "ci_high": s["ci_high"], "p": s["p"],
                         "amortises": verdict(s["ci_low"], s["ci_high"], "less", 0.0)})
    return pd.DataFrame(rows, columns=["protocol", "variant", "metric", "tasks", "first_quarter_mean",
                                       "last_quarter_mean", "slope_per_task", "ci_low", "ci_high", "p", "amortises"])


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
                    rows.append({"protocol": p, "variant": v, "family": SHORT.get(f, f), "index": int(k),
                                 "family_tasks": n, "running_pct": float(ra), "baseline_running_pct": float(rb),
                                 "difference_points": float(ra - rb)})
    cols = ["protocol", "variant", "family", "index", "family_tasks", "running_pct", "baseline_running_pct",
            "difference_points"]
    return pd.DataFrame(rows, columns=cols).sort_values(["protocol", "variant", "index"], kind="stable",
                                                        ignore_index=True)


def family_running_figure(running: pd.DataFrame, protocol: str = "full_chain", subset: str = "", executor: str = ""):
    """Differenced running success per goal family (variant minus no store, points) over one protocol's chain, a
    panel per store variant and a line per family."""
    import matplotlib.pyplot as plt

    from tailmem.report.plots import offset, series_style

    chain = running[running.protocol == protocol]
    variants = list(pd.unique(chain.variant)) or ["(none)"]
    fig, axes = plt.subplots(1, len(variants), figsize=(3.6 * len(variants) + 1, 4.2), layout="constrained",
                             sharey=True, squeeze=False)
    families = [SHORT[f] for f in FAMILIES]
    for ax, v in zip(axes[0], variants):
        t = chain[chain.variant == v]
        present = [f for f in families if f in set(t.family)]
        for k, f in enumerate(present):
            fe = t[t.family == f]
            ax.plot(offset(fe["index"] + 1, k, len(present)), fe.difference_points, label=f, **series_style(k))
        ax.axhline(0, color="0.5", lw=0.8)
        ax.set_ylim(-105, 105)  # a difference of two success shares, in points
        ax.set_title(v, fontsize=10)
        ax.set_xlabel("task position in the chain")
        ax.set_ylabel("running success minus no store (points)")
        if present:
            ax.legend(fontsize=8, title="goal family", title_fontsize=8)
    who = f", executor {executor}" if executor else ""
    fig.suptitle(f"ALFWorld {subset} skill setting, {protocol.replace('_', ' ')}: running success by goal family "
                 f"against no store{who}".replace("  ", " "), fontsize=11)
    caption = (f"{protocol.replace('_', ' ').capitalize()}: {PROTOCOL_WORDS.get(protocol, protocol)}. A point is a "
               "task of that family: the family's success so far under the variant minus under no store on the "
               "same games (paper 2, Figure 12). Above 0: the store helps that family. Lines are offset by up to "
               "+-0.15 task so that families with the same values stay visible.")
    fig.text(0.0, -0.02, caption, fontsize=8, wrap=True, va="top")
    return fig


def effort_figure(effort: pd.DataFrame, protocol: str = "full_chain", subset: str = "", executor: str = ""):
    """Curation effort per task over one protocol's chain (paper 2, Figure 11): characters written and store files
    touched, a line per store variant."""
    import matplotlib.pyplot as plt

    from tailmem.report.plots import offset, series_style

    chain = effort_table(effort)
    chain = chain[chain.protocol == protocol]
    variants = list(pd.unique(chain.variant))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), layout="constrained")
    for k, v in enumerate(variants):
        t = chain[chain.variant == v]
        style = series_style(k)
        axes[0].plot(offset(t["index"] + 1, k, len(variants)), t.curation_chars, label=v, **style)
        axes[1].plot(offset(t["index"] + 1, k, len(variants)), t.files_touched, label=v, **style)
    for ax, (title, ylabel) in zip(axes, (("characters written", "characters written by the curator"),
                                          ("files touched", "store files created or changed (count)"))):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("task position in the chain")
        ax.set_ylabel(ylabel)
    if variants:
        axes[0].legend(fontsize=8, title="variant", title_fontsize=8)
    who = f", executor {executor}" if executor else ""
    fig.suptitle(f"ALFWorld {subset} skill setting, {protocol.replace('_', ' ')}: curation effort per task{who}"
                 .replace("  ", " "), fontsize=11)
    fig.text(0.0, -0.02, f"{protocol.replace('_', ' ').capitalize()}: {PROTOCOL_WORDS.get(protocol, protocol)}. "
             "Effort that amortises falls along the chain; paper 2 (Figure 11) saw its curator's rounds per task "
             "grow instead. Lines are offset by up to +-0.15 task so that variants with the same values stay "
             "visible.", fontsize=8, wrap=True, va="top")
    return fig


def skill_side_titles(subset: str) -> dict[str, str]:
    """Skill-side table stem suffix -> title."""
    return {
        "skills_store": f"ALFWorld {subset}: the store each task was given, per skill cell",
        "skills_erosion": f"ALFWorld {subset}: how the store's taxonomy moves as it grows",
        "skills_effort": f"ALFWorld {subset}: curation effort per task",
        "skills_effort_trend": f"ALFWorld {subset}: does curation effort amortise along the chain?",
        "skills_family_running": f"ALFWorld {subset}: running success per goal family against no store",
    }


TAXONOMY_WORDS = ("`b1_label_distinguishability` = share of siblings whose own label best matches their content; "
                  "`b2_sibling_cohesion` = how alike sibling files are against the rest; `b3_scope_leakage` = how "
                  "much a file's content matches other folders' labels; `b4_tree_content_spearman` = rank "
                  "correlation of tree distance and content distance (tailmem.fsmem.hierarchy)")


def skill_side_notes(executor: str, curator: str, settings: StatsSettings) -> dict[str, str]:
    """Skill-side table stem suffix -> the note under its title."""
    offline = "programmatic" in executor or "programmatic" in curator
    scripted = (" Offline the executor and curator are scripted (programmatic) agents, not language models: the "
                "shapes and trends are theirs, not comparable with paper 2's model-driven numbers." if offline else "")
    who = f" Executor: {executor}; curator: {curator}."
    return {
        "skills_store": ("One row per task of each store cell (no store left out): the hierarchy panel of the store "
                         "as the task was given it, restored from the cell's `before_<game>` snapshot; `index` = "
                         "position in the protocol's chain order. `files`, `folders`, `sections` (markdown headings), "
                         "`bytes`; `mean_leaf_depth`; `max_fanout`; `gini_bytes` = Gini of file sizes; "
                         f"`top_file_share` = the largest file's share of the bytes; {TAXONOMY_WORDS}. Empty = the "
                         f"metric needs at least two files.{who}{scripted}"),
        "skills_erosion": ("Per store cell: Spearman correlation, over the chain's tasks, of each structure metric "
                           "with the store's file count (`rho_<metric>`); a negative value = the metric falls as the "
                           "store grows (the erosion paper 2 reports in section 4.4). `final_files`, `final_kb` = the "
                           "store the last task was given. Empty = the metric or the file count never varied (or "
                           f"fewer than 3 tasks). {TAXONOMY_WORDS}.{who}{scripted}"),
        "skills_effort": ("One row per task of each store cell: `curation_chars` = characters the curator wrote "
                          "after the task; `files_touched` = store files it created or changed and `bytes_added` = "
                          "bytes the store grew by (the `before_`/`after_` snapshots around the curation); `rounds`, "
                          "`tool_calls` = a model curator's tool rounds and calls (empty for the programmatic "
                          f"curator, one deterministic pass per task).{who}{scripted}"),
        "skills_effort_trend": (f"Per store cell and effort metric: least-squares slope of the per-task effort on "
                                f"the task's position, with its {100 * settings.confidence:g}% t interval and "
                                "two-sided p; `first_quarter_mean`/`last_quarter_mean` = mean effort over the first "
                                "and last quarter of the chain. `amortises` = HELD when the whole interval is below "
                                "0 (effort falls per task), NOT HELD when it is above 0 (effort grows, as paper 2's "
                                f"Figure 11 found: {paper2.ALFWORLD_CURATION_ROUNDS[0]}-"
                                f"{paper2.ALFWORLD_CURATION_ROUNDS[1]} rounds per task), INCONCLUSIVE otherwise. "
                                "Three-chain cells restart their store, so their slope mixes three chains."
                                f"{who}{scripted}"),
        "skills_family_running": ("Paper 2's Figure 12 as data: for each store variant and each task it and no store "
                                  "both played, the task's goal family's success so far (%) under the variant "
                                  "(`running_pct`) and under no store (`baseline_running_pct`) on the same games, "
                                  "and their difference in points; `family_tasks` = tasks of that family so far. "
                                  "A family with few tasks (one at smoke size) moves in steps of 100 points."
                                  f"{who}{scripted}"),
    }
