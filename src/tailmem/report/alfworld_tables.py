"""ALFWorld tables and figures: paper 1's memory arms (tokens per step, success, access audit) and paper 2's
skill cells (success overall, by family and over the chain, invalid actions, store growth, cost per role).
Every table says how many games ran of how many were listed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.alfworld.games import FAMILIES, SHORT
from tailmem.artifacts import read_json
from tailmem.audit.concentration import concentration
from tailmem.audit.tailfit import fit_tail
from tailmem.provenance import save_provenance
from tailmem.report.table_io import write_table


def memory_frames(results: Path, subset: str, arms: list[str]) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    rows, fam_rows, counts = [], [], {}
    for arm in arms:
        eps = read_json(results / "memory" / subset / arm / "episodes.json")["episodes"]
        ran = [e for e in eps if e["loaded"]]
        steps = sum(e["steps"] for e in ran) or 1
        c = np.array([n for e in ran for n in e["accesses"].values()], dtype=float)
        counts[arm] = c
        conc = concentration(c) if c.size else None
        fit = fit_tail(c) if c.size else None
        rows.append({
            "arm": arm, "games": len(eps), "ran": len(ran),
            "success_pct": 100 * np.mean([e["success"] for e in ran]) if ran else np.nan,
            "steps_per_game": steps / max(len(ran), 1),
            "memory_tokens_per_step": sum(e["memory_tokens"] for e in ran) / steps,
            "prompt_tokens_per_step": sum(e["context_tokens"] for e in ran) / steps,
            "invalid_pct": 100 * sum(e["invalid"] for e in ran) / steps,
            "items": int(c.size), "gini": conc.gini if conc else np.nan,
            "top10_share": conc.top_share if conc else np.nan,
            "max_median": conc.max_median if conc else np.nan,
            "tail_fit": fit.status if fit else "",
            "alpha": getattr(fit, "alpha", np.nan) if fit else np.nan,
            "R_tpl_ln": getattr(fit, "R_tpl_ln", np.nan) if fit else np.nan,
        })
        for f in FAMILIES:
            fe = [e for e in ran if e["family"] == f]
            fam_rows.append({"arm": arm, "family": SHORT[f], "ran": len(fe),
                             "success_pct": 100 * np.mean([e["success"] for e in fe]) if fe else np.nan})
    fam = pd.DataFrame(fam_rows).pivot(index="family", columns="arm", values="success_pct").reset_index()
    return pd.DataFrame(rows), fam, counts


def skill_frames(results: Path, subset: str, protocols: list[str], variants: list[str]):
    rows, fam_rows, chains = [], [], {}
    for p in protocols:
        for v in variants:
            d = read_json(results / "skills" / subset / p / v / "chain.json")
            t = pd.DataFrame(d["tasks"])
            chains[(p, v)] = t
            ran = t[t.ran]
            n = len(t)
            q = max(n // 4, 1)
            steps = max(int(ran.steps.sum()), 1)
            leak = bool((t.store_sources_max >= t["index"]).any())
            rows.append({
                "protocol": p, "variant": v, "tasks": n, "ran": int(t.ran.sum()),
                "success_pct": 100 * ran.success.mean() if len(ran) else np.nan,
                "first_quarter_pct": 100 * ran[ran["index"] < q].success.mean() if len(ran) else np.nan,
                "last_quarter_pct": 100 * ran[ran["index"] >= n - q].success.mean() if len(ran) else np.nan,
                "invalid_pct": 100 * ran.invalid.sum() / steps,
                "steps_per_task": ran.steps.mean() if len(ran) else np.nan,
                "store_files": int(t.store_files.iloc[-1]) if n else 0,
                "store_kb": t.store_bytes.iloc[-1] / 1024 if n else 0.0,
                "retrieval_chars_per_task": ran.retrieval_chars.mean() if len(ran) else np.nan,
                "curation_chars_per_task": ran.curation_chars.mean() if len(ran) else np.nan,
                "execution_tokens_per_task": ran.execution_tokens.mean() if len(ran) else np.nan,
                "guidance_tokens_per_step": (ran.guidance_tokens * ran.steps).sum() / steps,
                "leakage": "yes" if leak else "no",
            })
            for f in FAMILIES:
                fe = ran[ran.family == f]
                fam_rows.append({"cell": f"{p}/{v}", "family": SHORT[f],
                                 "success_pct": 100 * fe.success.mean() if len(fe) else np.nan})
    fam = pd.DataFrame(fam_rows).pivot(index="family", columns="cell", values="success_pct").reset_index()
    return pd.DataFrame(rows), fam, chains


def write_all(cfg, results: Path, subset: str) -> None:
    from tailmem.report.plots import rank_frequency, save_figure
    import matplotlib.pyplot as plt

    a = cfg.alfworld
    tables = Path(cfg.out) if cfg.get("out") else Path(cfg.results_dir) / "tables"
    figures = Path(cfg.figures_dir)
    stem = f"alfworld_{subset}"
    mem, mem_fam, counts = memory_frames(results, subset, list(a.arms_run))
    write_table(tables, f"{stem}_memory", mem, f"ALFWorld {subset}: observation memory, Graph Memory vs CTMC",
                f"Executor: {cfg.llm.roles.executor.agent if cfg.llm.roles.executor.backend == 'programmatic' else cfg.llm.roles.executor.model}; "
                f"at most {a.max_steps} actions; `ran` = games that loaded (of `games`). Tokens counted with {cfg.llm.encoding}. "
                "Access audit over (game, location) items.")
    write_table(tables, f"{stem}_memory_family", mem_fam, f"ALFWorld {subset}: success (%) per goal family and memory arm", "")
    sk, sk_fam, chains = skill_frames(results, subset, list(a.protocols), list(a.variants))
    write_table(tables, f"{stem}_skills", sk, f"ALFWorld {subset}: skill setting (paper 2), five variants x two protocols",
                "Curator and retriever programmatic; costs per role: retrieval = store characters read, curation = "
                "characters written, execution = executor prompt tokens. `leakage` = a task's store held that task "
                "or a later one (must be `no`).")
    write_table(tables, f"{stem}_skills_family", sk_fam, f"ALFWorld {subset}: skill-setting success (%) per goal family", "")

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for v in a.variants:
        t = chains[("full_chain", v)]
        ok = t[t.ran]
        axes[0].plot(ok["index"] + 1, ok.success.expanding().mean() * 100, label=v, linewidth=1)
        axes[1].plot(t["index"] + 1, t.store_files, label=v, linewidth=1)
        axes[2].plot(t["index"] + 1, t.store_bytes / 1024, label=v, linewidth=1)
    for ax, title in zip(axes, ("running success (%)", "store files", "store size (KB)")):
        ax.set_title(f"full chain: {title}", fontsize=9)
        ax.set_xlabel("task")
    axes[0].legend(fontsize=7)
    save_figure(fig, figures / f"{stem}_skills_growth")

    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for arm, c in counts.items():
        if c.sum() > 0:
            rank_frequency(axes[0], c, arm)
    axes[0].set_title("access rank-frequency", fontsize=9)
    axes[0].legend(fontsize=7)
    axes[1].bar(mem.arm, mem.memory_tokens_per_step)
    axes[1].set_title("memory tokens per step", fontsize=9)
    save_figure(fig, figures / f"{stem}_memory")
    save_provenance(tables, cfg, prefix=f"{stem}_")
