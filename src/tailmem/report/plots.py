"""Figure makers shared by the figure stages: CCDF with fitted tails, rank-frequency and cumulative share."""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from tailmem.artifacts import atomic_path  # noqa: E402


def save_figure(fig, stem: Path) -> list[Path]:
    """Write `stem.png` and `stem.pdf` atomically; close the figure."""
    written = []
    for ext in ("png", "pdf"):
        target = stem.with_suffix(f".{ext}")
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=ext, dpi=150, bbox_inches="tight")
        written.append(target)
    plt.close(fig)
    return written


def panel_grid(k: int, width: float = 3.6, height: float = 3.2):
    cols = min(3, k)
    rows = int(np.ceil(k / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False, layout="constrained")
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    return fig, axes.flat[:k]


def ccdf_with_tails(ax, counts: np.ndarray, xmin: float, tpl_alpha_max: float, title: str) -> None:
    """Empirical CCDF of the tail (counts >= xmin) with powerlaw's fitted TPL and log-normal CCDFs."""
    import powerlaw

    from tailmem.audit import tpl_normalizer

    tpl_normalizer.install()

    data = np.asarray(counts, dtype=float)
    data = data[data > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = powerlaw.Fit(
            data, discrete=True, xmin=xmin, verbose=0, parameter_ranges={"alpha": [1.0, tpl_alpha_max]}
        )
        fit.plot_ccdf(ax=ax, color="black", marker=".", linestyle="none", label="empirical")
        try:
            fit.truncated_power_law.plot_ccdf(ax=ax, color="tab:red", linestyle="--", label="TPL")
        except (ArithmeticError, ValueError):  # see audit.tailfit: powerlaw's discrete TPL can fail to fit
            title += " (TPL not fitted)"
        fit.lognormal.plot_ccdf(ax=ax, color="tab:blue", linestyle=":", label="log-normal")
    ax.set_title(title, fontsize=8)
    # plain integer labels at 1, 2, 5 x 10^k: a tail spans less than a decade, and default minor labels collide
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("accesses per item (x >= xmin)", fontsize=8)
    ax.set_ylabel("P(X >= x)", fontsize=8)


def rank_frequency(ax, counts: np.ndarray, label: str) -> None:
    """Access share of each item, most to least accessed, on log-log axes."""
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    c = c[c > 0] / c.sum()
    ax.loglog(np.arange(1, len(c) + 1), c, label=label, linewidth=1)


def cumulative_share(ax, counts: np.ndarray, label: str) -> None:
    """Fraction of all accesses captured by the top-ranked fraction of items."""
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    ax.plot(np.arange(1, len(c) + 1) / len(c), np.cumsum(c) / c.sum(), label=label, linewidth=1)
