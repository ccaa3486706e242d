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
