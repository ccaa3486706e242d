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


def notes(executor: str, curator: str, retriever: str, max_steps: int, encoding: str,
          excluded: int = 0) -> dict[str, str]:
    """Table stem suffix -> the note under its title; `excluded` = listed games never played (games.EXCLUDED)."""
    left_out = (f" {excluded} listed game(s) excluded: alfworld's expert cannot win them (games.EXCLUDED)."
                if excluded else "")
    return {
        "memory": (f"Executor: {executor}; at most {max_steps} actions; `ran` = games that loaded (of `games`). "
                   f"Tokens counted with {encoding}. Access audit over (game, location) items.{left_out}"),
        "memory_family": "",
        "skills": (f"Executor: {executor}; curator: {curator}; retriever: {retriever}. Costs per role: retrieval = "
                   "store characters read, curation = characters written, execution = executor prompt tokens. "
                   f"`leakage` = a task's store held that task or a later one (must be `no`).{left_out}"),
        "skills_family": "",
    }


def skills_growth_figure(tasks: pd.DataFrame, protocol: str = "full_chain"):
    """Running success, store files and store size over one protocol's chain, a line per variant."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for v, t in tasks[tasks.protocol == protocol].groupby("variant", sort=False):
        t = t.sort_values("index")
        ok = t[t.ran.astype(bool)]
        axes[0].plot(ok["index"] + 1, ok.success.astype(float).expanding().mean() * 100, label=v, linewidth=1)
        axes[1].plot(t["index"] + 1, t.store_files, label=v, linewidth=1)
        axes[2].plot(t["index"] + 1, t.store_bytes / 1024, label=v, linewidth=1)
    for ax, title in zip(axes, ("running success (%)", "store files", "store size (KB)")):
        ax.set_title(f"{protocol.replace('_', ' ')}: {title}", fontsize=9)
        ax.set_xlabel("task")
    axes[0].legend(fontsize=7)
    return fig


def memory_figure(memory: pd.DataFrame, counts: dict[str, np.ndarray]):
    """Access rank-frequency per arm, and memory tokens per step per arm."""
    import matplotlib.pyplot as plt

    from tailmem.report.plots import rank_frequency

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for arm, c in counts.items():
        if c.sum() > 0:
            rank_frequency(axes[0], c, arm)
    axes[0].set_title("access rank-frequency", fontsize=9)
    axes[0].legend(fontsize=7)
    axes[1].bar(memory.arm, memory.memory_tokens_per_step)
    axes[1].set_title("memory tokens per step", fontsize=9)
    return fig
