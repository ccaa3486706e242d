"""Paper 1 Figure 8: per question type, prompt tokens per query (left) and substring-match accuracy (right),
bars = mean over seeds, error bars = sample sd; one row per dataset (oracle, S sample)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.data.longmemeval import QUESTION_TYPES
from tailmem.longmemeval.arms import ctmc_name
from tailmem.report.plots import plt, save_figure

SHORT = {"single-session-user": "SS-user", "single-session-assistant": "SS-asst", "single-session-preference": "SS-pref",
         "multi-session": "multi", "temporal-reasoning": "temporal", "knowledge-update": "k-update"}


def _per_seed(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.groupby(["dataset", "arm", "label", "question_type", "seed"], sort=False).agg(
        tokens=("prompt_tokens", "mean"), accuracy=("correct", "mean")).reset_index()


def figure8(rows: pd.DataFrame, stem: Path, primary_ratio: float, note: str = "") -> list[Path]:
    arms = [a for a in ("graph_memory", ctmc_name(primary_ratio), "flat_retrieval", "full_history") if a in set(rows.arm)]
    datasets = list(dict.fromkeys(rows.dataset))
    stats = _per_seed(rows[rows.arm.isin(arms)]).groupby(["dataset", "arm", "label", "question_type"]).agg(
        tokens=("tokens", "mean"), tokens_sd=("tokens", "std"), accuracy=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std")).reset_index()
    types = [t for t in QUESTION_TYPES if t in set(rows.question_type)]
    fig, axes = plt.subplots(len(datasets), 2, figsize=(12, 3.4 * len(datasets)), squeeze=False)
    width = 0.8 / len(arms)
    x = np.arange(len(types))
    colors = {"graph_memory": "tab:blue", "flat_retrieval": "tab:gray", "full_history": "tab:brown"}
    for row, dataset in enumerate(datasets):
        for col, (metric, ylabel) in enumerate((("tokens", "prompt tokens per query (log scale)"),
                                                   ("accuracy", "substring-match accuracy (share of questions)"))):
            ax = axes[row][col]
            for j, arm in enumerate(arms):
                s = stats[(stats.dataset == dataset) & (stats.arm == arm)].set_index("question_type").reindex(types)
                sd = s[f"{metric}_sd"].fillna(0.0).to_numpy()
                ax.bar(x + (j - (len(arms) - 1) / 2) * width, s[metric].to_numpy(), width, yerr=sd, capsize=2,
                       label=s.label.dropna().iloc[0] if s.label.notna().any() else arm,
                       color=colors.get(arm, "tab:red"))
            ax.set_xticks(x, [SHORT.get(t, t) for t in types], fontsize=8)
            ax.set_ylabel(ylabel, fontsize=9)
            ax.set_xlabel("question type", fontsize=9)
            ax.set_title(f"LongMemEval {dataset}: {ylabel}", fontsize=9)
            if metric == "tokens":
                ax.set_yscale("log")
            else:
                ax.set_ylim(0, 1)
    axes[0][0].legend(fontsize=7, loc="upper left")
    if note:
        fig.text(0.01, -0.02, "Error bars: sample sd over seeds. " + note, fontsize=7, wrap=True, va="top")
    fig.tight_layout()
    return save_figure(fig, stem)
