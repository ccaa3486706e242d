"""Paper 1 Figures 4, 6 and 7 from the controller-study frames (Table 3's audit rows, the tau concentration
frame, the token-reduction frame); the stage `control_report` builds the frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from tailmem.report import plots


def figure4(table3: pd.DataFrame, threshold: float, stem: Path, title: str) -> None:
    """Table 3 as bars per family: fitted alpha, bootstrap p_gof (with the screen threshold) and R(TPL vs LN)."""
    fig, axes = plots.plt.subplots(1, 3, figsize=(11, 3.8), layout="constrained")
    x = np.arange(len(table3))
    axes[0].bar(x, table3.alpha, yerr=table3.alpha_sd.fillna(0), color="tab:gray")
    axes[0].set_title("Fitted tail exponent", fontsize=9)
    axes[0].set_ylabel("power-law exponent alpha")
    axes[1].bar(x, table3.p_gof, color="tab:green")
    axes[1].axhline(threshold, color="red", linestyle="--", label=f"screen threshold p_gof = {threshold}")
    axes[1].set_title("Goodness of fit", fontsize=9)
    axes[1].set_ylabel("bootstrap goodness-of-fit p (p_gof)")
    axes[1].legend(fontsize=7)
    axes[2].bar(x, table3.R_tpl_ln, color="tab:purple")
    axes[2].axhline(0, color="black", linewidth=0.5)
    axes[2].set_title("Truncated power law vs log-normal", fontsize=9)
    axes[2].set_ylabel("log-likelihood ratio R (> 0 favours TPL)")
    for ax in axes:
        ax.set_xticks(x, [f.replace("_", "-") for f in table3.family], rotation=30, fontsize=8)
        ax.set_xlabel("graph family")
    fig.suptitle(
        f"{title}\nTPL = truncated power law; a family with no bar had a tail too small to fit (audit.min_tail)",
        fontsize=9,
    )
    plots.save_figure(fig, stem)


# Figure 6's metrics: column of the tau concentration frame -> axis label in words.
CONCENTRATION_LABELS = {
    "gini": "Gini coefficient of accesses",
    "skew": "skewness of access counts",
    "max_median": "max / median accesses per item",
}
TAU_LABEL = "CTMC allocation exponent tau"


def figure6(conc: pd.DataFrame, stem: Path, title: str) -> None:
    """Gini, skewness and max/median of the controller's accesses against tau per family, mean and sd over seeds."""
    fig, axes = plots.plt.subplots(1, 3, figsize=(11, 3.6), layout="constrained")
    for ax, (metric, label) in zip(axes, CONCENTRATION_LABELS.items()):
        for fam, sub in conc.groupby("family", sort=False):
            g = sub.groupby("tau")[metric]
            ax.errorbar(g.mean().index, g.mean(), yerr=g.std(ddof=1).fillna(0), marker="o", capsize=3, label=fam)
        ax.set_title(label[0].upper() + label[1:], fontsize=9)
        ax.set_xlabel(f"{TAU_LABEL} (0 = uniform)")
        ax.set_ylabel(label)
    axes[0].legend(title="graph family", fontsize=7, title_fontsize=7)
    fig.suptitle(
        f"{title}\nmean ± sd over seeds; tau = exponent of the rank share b(r) ~ r^-tau (higher: more "
        "budget to top-ranked items)",
        fontsize=9,
    )
    plots.save_figure(fig, stem)


ENCODING_COLOURS = {"verbose": "tab:orange", "compact": "tab:blue"}


def figure7(red: pd.DataFrame, stem: Path, title: str) -> None:
    """Prompt-token reduction of CTMC vs Graph Memory per paired configuration (family, seed, encoding), each arm at
    its own nominal budget; a negative bar is an increase."""
    fig, ax = plots.plt.subplots(figsize=(max(6.0, 0.9 * len(red) + 2.0), 3.8), layout="constrained")
    x = np.arange(len(red))
    ax.bar(x, red.reduction_pct, color=[ENCODING_COLOURS.get(e, "tab:gray") for e in red.encoding])
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_xticks(x, [f"{r.family.replace('_', '-')}\nseed {r.seed}" for r in red.itertuples()], fontsize=7)
    ax.set_xlabel("paired configuration (graph family, seed)")
    ax.set_ylabel("prompt-token reduction (%)\n(> 0: CTMC spends fewer)")
    from matplotlib.patches import Patch

    handles = [
        Patch(color=c, label=f"{enc} encoding") for enc, c in ENCODING_COLOURS.items() if enc in set(red.encoding)
    ]
    ax.legend(handles=handles, title="memory encoding", fontsize=7, title_fontsize=7)
    ax.set_title(
        f"{title}\nreduction = 100 x (1 - CTMC tokens/step / Graph Memory tokens/step); whole-prompt "
        "tokens, each arm at its nominal budget",
        fontsize=9,
    )
    plots.save_figure(fig, stem)
