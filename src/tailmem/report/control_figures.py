"""Paper 1 Figures 4, 6 and 7 from the controller-study frames (Table 3's audit rows, the tau concentration
frame, the token-reduction frame); the stage `control_report` builds the frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.report import plots


def figure4(table3: pd.DataFrame, threshold: float, stem: Path, title: str) -> None:
    """Table 3 as bars per family: fitted alpha, bootstrap p_gof (with the screen threshold) and R(TPL vs LN)."""
    fig, axes = plots.plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained")
    x = np.arange(len(table3))
    axes[0].bar(x, table3.alpha, yerr=table3.alpha_sd.fillna(0), color="tab:gray")
    axes[0].set_ylabel("fitted alpha")
    axes[1].bar(x, table3.p_gof, color="tab:green")
    axes[1].axhline(threshold, color="red", linestyle="--", label=f"p_gof = {threshold}")
    axes[1].set_ylabel("bootstrap p_gof")
    axes[1].legend(fontsize=7)
    axes[2].bar(x, table3.R_tpl_ln, color="tab:purple")
    axes[2].axhline(0, color="black", linewidth=0.5)
    axes[2].set_ylabel("R (TPL vs log-normal)")
    for ax in axes:
        ax.set_xticks(x, table3.family, rotation=30, fontsize=8)
    fig.suptitle(title, fontsize=10)
    plots.save_figure(fig, stem)


def figure6(conc: pd.DataFrame, stem: Path, title: str) -> None:
    """Gini, skew and max/median against tau per family, mean and sd over seeds."""
    fig, axes = plots.plt.subplots(1, 3, figsize=(11, 3.4), layout="constrained")
    for ax, metric in zip(axes, ("gini", "skew", "max_median")):
        for fam, sub in conc.groupby("family", sort=False):
            g = sub.groupby("tau")[metric]
            ax.errorbar(g.mean().index, g.mean(), yerr=g.std(ddof=1).fillna(0), marker="o", capsize=3, label=fam)
        ax.set_xlabel("tau")
        ax.set_ylabel(metric)
    axes[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    plots.save_figure(fig, stem)


def figure7(red: pd.DataFrame, stem: Path, title: str) -> None:
    """Prompt-token reduction of CTMC vs Graph Memory per paired configuration (family, seed, encoding)."""
    fig, ax = plots.plt.subplots(figsize=(7, 3.4), layout="constrained")
    labels = [f"{r.family}/s{r.seed}/{r.encoding[0]}" for r in red.itertuples()]
    colors = ["tab:orange" if e == "verbose" else "tab:blue" for e in red.encoding]
    ax.bar(np.arange(len(red)), red.reduction_pct, color=colors)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_xticks(np.arange(len(red)), labels, rotation=60, fontsize=7)
    ax.set_ylabel("prompt-token reduction (%)")
    ax.set_title(title, fontsize=10)
    plots.save_figure(fig, stem)
