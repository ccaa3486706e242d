"""ALFWorld figures: the memory arms' access concentration and cost, and the skill setting's growth, curation
effort and running success by goal family along a chain. Captions take their words from `studies.alfworld.text`.

Pure drawing: frames in, Matplotlib figures out (the stage saves them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tailmem.studies.alfworld.play.games import FAMILIES, SHORT
from tailmem.studies.alfworld.tables import effort_table
from tailmem.studies.alfworld.text import PROTOCOL_WORDS, VARIANT_WORDS, arm_sentence


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
        axes[0].plot(
            offset(ok["index"] + 1, k, len(variants)),
            ok.success.astype(float).expanding().mean() * 100,
            label=v,
            **style,
        )
        axes[1].plot(offset(t["index"] + 1, k, len(variants)), t.store_files, label=v, **style)
        axes[2].plot(offset(t["index"] + 1, k, len(variants)), t.store_bytes / 1024, label=v, **style)
    panels = (
        ("running success", "success so far (% of tasks)"),
        ("store files", "files in the store (count)"),
        ("store size", "store size (KB)"),
    )
    for ax, (title, ylabel) in zip(axes, panels):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("task position in the chain")
        ax.set_ylabel(ylabel)
    axes[0].legend(fontsize=8, title="variant", title_fontsize=8)
    who = f", executor {executor}" if executor else ""
    fig.suptitle(f"ALFWorld {subset} skill setting, {protocol.replace('_', ' ')}{who}".replace("  ", " "), fontsize=11)
    words = PROTOCOL_WORDS.get(protocol, protocol)
    caption = (
        f"{protocol.replace('_', ' ').capitalize()}: {words}. Variants: "
        + "; ".join(f"{v} = {VARIANT_WORDS.get(v, v)}" for v in variants)
        + ". Lines are offset by up to +-0.15 task so that variants with the same values stay visible."
    )
    fig.text(0.0, -0.02, caption, fontsize=8, wrap=True, va="top")
    return fig


def memory_figure(
    memory: pd.DataFrame,
    counts: dict[str, np.ndarray],
    subset: str = "",
    executor: str = "",
    arms: dict[str, str] | None = None,
):
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
    fig.suptitle(
        f"ALFWorld {subset} observation memory: access concentration and cost per arm{who}".replace("  ", " "),
        fontsize=11,
    )
    if arms:
        fig.text(
            0.0,
            -0.02,
            arm_sentence(arms) + " An access = a (game, location) item placed into the prompt.",
            fontsize=8,
            wrap=True,
            va="top",
        )
    return fig


def family_running_figure(running: pd.DataFrame, protocol: str = "full_chain", subset: str = "", executor: str = ""):
    """Differenced running success per goal family (variant minus no store, points) over one protocol's chain, a
    panel per store variant and a line per family."""
    import matplotlib.pyplot as plt

    from tailmem.report.plots import offset, series_style

    chain = running[running.protocol == protocol]
    variants = list(pd.unique(chain.variant)) or ["(none)"]
    fig, axes = plt.subplots(
        1, len(variants), figsize=(3.6 * len(variants) + 1, 4.2), layout="constrained", sharey=True, squeeze=False
    )
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
    fig.suptitle(
        f"ALFWorld {subset} skill setting, {protocol.replace('_', ' ')}: running success by goal family "
        f"against no store{who}".replace("  ", " "),
        fontsize=11,
    )
    caption = (
        f"{protocol.replace('_', ' ').capitalize()}: {PROTOCOL_WORDS.get(protocol, protocol)}. A point is a "
        "task of that family: the family's success so far under the variant minus under no store on the "
        "same games (paper 2, Figure 12). Above 0: the store helps that family. Lines are offset by up to "
        "+-0.15 task so that families with the same values stay visible."
    )
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
    for ax, (title, ylabel) in zip(
        axes,
        (
            ("characters written", "characters written by the curator"),
            ("files touched", "store files created or changed (count)"),
        ),
    ):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("task position in the chain")
        ax.set_ylabel(ylabel)
    if variants:
        axes[0].legend(fontsize=8, title="variant", title_fontsize=8)
    who = f", executor {executor}" if executor else ""
    fig.suptitle(
        f"ALFWorld {subset} skill setting, {protocol.replace('_', ' ')}: curation effort per task{who}".replace(
            "  ", " "
        ),
        fontsize=11,
    )
    fig.text(
        0.0,
        -0.02,
        f"{protocol.replace('_', ' ').capitalize()}: {PROTOCOL_WORDS.get(protocol, protocol)}. "
        "Effort that amortises falls along the chain; paper 2 (Figure 11) saw its curator's rounds per task "
        "grow instead. Lines are offset by up to +-0.15 task so that variants with the same values stay "
        "visible.",
        fontsize=8,
        wrap=True,
        va="top",
    )
    return fig
