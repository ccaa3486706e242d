"""Paper 1 Figures 3 and 5: access CCDFs with fitted tails, and access concentration, for the random walk beside
the controller study's policy (semantic, or the LLM policy when a model plays it) on the same worlds.

Each function takes `Trace` records (a run's keys, its access counts and its audit's `tail` block) and returns the
drawn, unsaved figure, so a test can inspect it; the stage saves it (`report.plots.save_figure`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from matplotlib.lines import Line2D

from tailmem.report import plots

POLICY_LABELS = {"random_walk": "random walk", "semantic": "semantic policy", "llm": "LLM policy"}
POLICY_LINESTYLES = {"random_walk": "-", "semantic": "--", "llm": "-."}
FIT_KEY = "black points: empirical CCDF; red dashed: truncated power law (TPL); blue dotted: log-normal"


@dataclass(frozen=True)
class Trace:
    """One run's access counts and tail fit, as a figure draws them."""

    policy: str
    family: str
    n: int
    seed: int
    counts: np.ndarray = field(repr=False)
    tail: dict = field(default_factory=dict)

    @property
    def column(self) -> tuple:
        """Figure 3's column of this trace: one per policy, size and seed."""
        return (self.policy, self.n, self.seed)


def policy_label(policy: str) -> str:
    return POLICY_LABELS.get(policy, f"{policy} policy")


def policy_linestyle(policy: str) -> str:
    return POLICY_LINESTYLES.get(policy, ":")


def _num(value, spec: str) -> str:
    """A fitted number for a title, or "-" where the fit gave none."""
    return "-" if value is None or not np.isfinite(float(value)) else format(float(value), spec)


def fit_text(tail: dict) -> str:
    """A panel's second title line: alpha, xmin and R(TPL vs LN), or why the tail has no fit."""
    status = tail.get("status", "ok")
    if status != "ok":
        n_tail, xmin = tail.get("n_tail"), tail.get("xmin")
        if status == "tail_too_small":
            return f"tail too small to fit: {n_tail} states at >= xmin {_num(xmin, '.0f')}"
        return f"no tail fit ({status})"
    return (
        f"alpha {_num(tail.get('alpha'), '.2f')}, xmin {_num(tail.get('xmin'), '.0f')}, "
        f"R(TPL vs LN) {_num(tail.get('R_tpl_ln'), '+.2f')}"
    )


def _empirical_ccdf(ax, counts: np.ndarray, title: str, xmin) -> None:
    """The CCDF of every accessed state's count (no fitted curves), with xmin marked where the audit chose one."""
    x = np.sort(np.asarray(counts, dtype=float))
    x = x[x > 0]
    if x.size:
        values, first = np.unique(x, return_index=True)  # P(X >= v) = share of items at or above v
        ax.loglog(values, 1.0 - first / x.size, color="black", marker=".", linestyle="none", label="empirical")
    if xmin is not None and np.isfinite(float(xmin)):
        ax.axvline(float(xmin), color="tab:gray", linestyle=":", linewidth=1, label="xmin")
    plots.ccdf_axes(ax, title, "accesses per item (all accessed items)")


def figure3(traces: list[Trace], tpl_alpha_max: float, title: str):
    """One row per family, one column per (policy, size, seed): the CCDF of the tail with the fitted TPL and
    log-normal where the audit fitted the tail, else the whole empirical CCDF and why there is no fit."""
    families = list(dict.fromkeys(t.family for t in traces))
    columns = list(dict.fromkeys(t.column for t in traces))
    at = {(t.family, t.column): t for t in traces}
    fig, axes = plots.plt.subplots(
        len(families),
        len(columns),
        figsize=(3.6 * len(columns), 3.0 * len(families)),
        squeeze=False,
        layout="constrained",
    )
    legend_done, unfitted = False, False
    for i, fam in enumerate(families):
        for j, col in enumerate(columns):
            ax, t = axes[i, j], at.get((fam, col))
            if t is None:
                ax.set_visible(False)
                continue
            head = f"{fam}: {policy_label(t.policy)}, n = {t.n}, seed {t.seed}\n{fit_text(t.tail)}"
            if t.tail.get("status", "ok") == "ok":
                plots.ccdf_with_tails(ax, t.counts, t.tail["xmin"], tpl_alpha_max, head)
                if not legend_done:
                    ax.legend(fontsize=7)
                    legend_done = True
            else:
                _empirical_ccdf(ax, t.counts, head, t.tail.get("xmin"))
                unfitted = True
    reading = (
        "grey dotted line: the xmin of a tail too small to fit; " if unfitted else ""
    ) + "R(TPL vs LN) > 0 favours the TPL, < 0 the log-normal"
    fig.suptitle(f"{title}\n{FIT_KEY}\n{reading}", fontsize=10)
    return fig


def _cumulative_share(ax, counts: np.ndarray, **style) -> None:
    """Fraction of all accesses captured by the top-ranked fraction of items (`report.plots.cumulative_share`,
    with a line style)."""
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    ax.plot(np.arange(1, len(c) + 1) / len(c), np.cumsum(c) / c.sum(), **({"linewidth": 1} | style))


def family_style(k: int) -> dict:
    """The k-th family's colour and hollow marker (spaced an eighth of the axes' diagonal apart), so families stay
    apart where their lines coincide and in grey."""
    return {
        "color": plots.COLORS[k % len(plots.COLORS)],
        "marker": plots.MARKERS[k % len(plots.MARKERS)],
        "markerfacecolor": "none",
        "markersize": 4,
        "markevery": 0.125,
    }


def _concentration_row(left, right, traces: list[Trace], families: list[str], heading: str) -> None:
    for t in traces:
        style = family_style(families.index(t.family)) | {"linestyle": policy_linestyle(t.policy)}
        plots.rank_frequency(left, t.counts, f"{t.family}, {policy_label(t.policy)}", **style)
        _cumulative_share(right, t.counts, **style)
    left.set_title(f"{heading}: rank-frequency", fontsize=9)
    right.set_title(f"{heading}: cumulative share", fontsize=9)
    left.set_xlabel("rank of the item (1 = most accessed)")
    left.set_ylabel("normalised access frequency")
    right.set_xlabel("top-ranked fraction of items")
    right.set_ylabel("cumulative share of accesses")


def _sizes(traces: list[Trace]) -> str:
    return ", ".join(f"n = {n}" for n in dict.fromkeys(t.n for t in traces))


def figure5(contrast: list[Trace], largest: list[Trace], title: str):
    """Rank-frequency (left) and cumulative share (right). Top row: every policy of `contrast` on the same worlds,
    a colour per family and a line style per policy. Bottom row (when `largest` is given): the random walk at the
    largest size."""
    families = list(dict.fromkeys(t.family for t in contrast + largest))
    policies = list(dict.fromkeys(t.policy for t in contrast + largest))
    rows = [("same worlds, " + _sizes(contrast), contrast)] if contrast else []
    if largest:
        rows.append((f"{policy_label(largest[0].policy)}, largest size ({_sizes(largest)})", largest))
    fig, axes = plots.plt.subplots(len(rows), 2, figsize=(10, 3.8 * len(rows)), squeeze=False, layout="constrained")
    for (heading, traces), (left, right) in zip(rows, axes):
        _concentration_row(left, right, traces, families, heading)
    colour_key = [
        Line2D([], [], label=fam, **(family_style(k) | {"markevery": None})) for k, fam in enumerate(families)
    ]
    style_key = [Line2D([], [], color="black", linestyle=policy_linestyle(p), label=policy_label(p)) for p in policies]
    axes[0, 1].legend(
        handles=colour_key, title="graph family (colour, marker)", fontsize=7, title_fontsize=7, loc="lower right"
    )
    axes[0, 0].legend(handles=style_key, title="policy (line style)", fontsize=7, title_fontsize=7, loc="lower left")
    fig.suptitle(title, fontsize=10)
    return fig
