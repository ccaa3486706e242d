"""Paper 1 Figure 8: per question type, prompt tokens per query (left) and substring-match accuracy (right),
bars = mean over seeds, error bars = sample sd; one row per dataset (oracle, S sample). A bar position holding a
measured zero is marked `0`, one with no question of that type for the arm `n/a`, so the two never look alike."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.data.longmemeval import QUESTION_TYPES
from tailmem.haystack.arms import ctmc_name
from tailmem.report.plots import plt, save_figure

SHORT = {
    "single-session-user": "SS-user",
    "single-session-assistant": "SS-asst",
    "single-session-preference": "SS-pref",
    "multi-session": "multi",
    "temporal-reasoning": "temporal",
    "knowledge-update": "k-update",
}


def _per_seed(rows: pd.DataFrame) -> pd.DataFrame:
    return (
        rows.groupby(["dataset", "arm", "label", "question_type", "seed"], sort=False)
        .agg(tokens=("prompt_tokens", "mean"), accuracy=("correct", "mean"))
        .reset_index()
    )


ZERO, MISSING = "0", "n/a"  # marks on a bar position: a measured zero, no question of that type for the arm
CAPTION = (
    "Bars: mean over seeds; error bars: sample sd over seeds. A bar position marked 0 is a measured zero; "
    "one marked n/a had no question of that type for that arm (not run), so nothing was measured. "
    "Question types: SS = single-session (user, asst = assistant, pref = preference), multi = multi-session, "
    "temporal = temporal reasoning, k-update = knowledge update."
)


def _mark(ax, x: float, text: str, color: str) -> None:
    """A small label just above the axis at bar position `x` (axes-fraction height, so a log axis works too)."""
    t = ax.text(
        x,
        0.01,
        text,
        transform=ax.get_xaxis_transform(),
        ha="center",
        va="bottom",
        fontsize=8,
        color=color,
        fontweight="bold" if text == ZERO else "normal",
        rotation=90 if text == MISSING else 0,
    )
    t.set_gid(text)


def draw_figure8(rows: pd.DataFrame, primary_ratio: float, note: str = ""):
    """Figure 8 drawn, not saved: per dataset, tokens per query (left) and accuracy (right) per question type and
    arm; a zero is marked `0` and a missing arm/type `n/a`, so an empty bar position is never ambiguous."""
    arms = [
        a for a in ("graph_memory", ctmc_name(primary_ratio), "flat_retrieval", "full_history") if a in set(rows.arm)
    ]
    datasets = list(dict.fromkeys(rows.dataset))
    stats = (
        _per_seed(rows[rows.arm.isin(arms)])
        .groupby(["dataset", "arm", "label", "question_type"])
        .agg(
            tokens=("tokens", "mean"),
            tokens_sd=("tokens", "std"),
            accuracy=("accuracy", "mean"),
            accuracy_sd=("accuracy", "std"),
        )
        .reset_index()
    )
    types = [t for t in QUESTION_TYPES if t in set(rows.question_type)]
    fig, axes = plt.subplots(len(datasets), 2, figsize=(12, 3.4 * len(datasets)), squeeze=False)
    width = 0.8 / len(arms)
    x = np.arange(len(types))
    colors = {"graph_memory": "tab:blue", "flat_retrieval": "tab:gray", "full_history": "tab:brown"}
    labels = rows.dropna(subset=["label"]).drop_duplicates("arm").set_index("arm")["label"]
    for row, dataset in enumerate(datasets):
        for col, (metric, ylabel) in enumerate(
            (
                ("tokens", "prompt tokens per query (log scale)"),
                ("accuracy", "substring-match accuracy (share of questions)"),
            )
        ):
            ax = axes[row][col]
            for j, arm in enumerate(arms):
                s = stats[(stats.dataset == dataset) & (stats.arm == arm)].set_index("question_type").reindex(types)
                values = s[metric].to_numpy(dtype=float)
                pos = x + (j - (len(arms) - 1) / 2) * width
                color = colors.get(arm, "tab:red")
                ax.bar(
                    pos,
                    values,
                    width,
                    yerr=s[f"{metric}_sd"].fillna(0.0).to_numpy(),
                    capsize=2,
                    label=labels.get(arm, arm),
                    color=color,
                )
                for p, v in zip(pos, values):
                    if np.isnan(v):
                        _mark(ax, p, MISSING, "dimgray")
                    elif v == 0:
                        _mark(ax, p, ZERO, color)
            ax.set_xticks(x, [SHORT.get(t, t) for t in types], fontsize=8)
            ax.set_xlim(-0.5, len(types) - 0.5)  # every bar position in view, a missing bar's too
            ax.set_ylabel(ylabel, fontsize=9)
            ax.set_xlabel("question type", fontsize=9)
            ax.set_title(f"LongMemEval {dataset}: {ylabel}", fontsize=9)
            if metric == "tokens":
                ax.set_yscale("log")
            else:
                ax.set_ylim(0, 1)
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.text(0.01, -0.02, f"{CAPTION} {note}".strip(), fontsize=8, wrap=True, va="top")
    fig.tight_layout()
    return fig


def figure8(rows: pd.DataFrame, stem: Path, primary_ratio: float, note: str = "") -> list[Path]:
    """Draw Figure 8 (`draw_figure8`) and save it through the readability check."""
    return save_figure(draw_figure8(rows, primary_ratio, note), stem)
