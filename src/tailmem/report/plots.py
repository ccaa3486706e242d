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
from tailmem.errors import TailmemError  # noqa: E402


class FigureError(TailmemError):
    """A figure a reader cannot understand on its own: an axes without a title or axis label, or text too small
    to read. The message names the figure stem and the axes."""


DPI = 150  # of the saved PNGs
MIN_FONT_PT = 7  # the smallest text (legend, caption, tick label) a figure may carry


def _text(t) -> str:
    return t.get_text().strip() if t is not None else ""


def _has_data(ax) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images or ax.containers)


def _label_shared(ax, axis: str) -> bool:
    """`ax` or an axes sharing its x (y) axis has an x (y) label: `label_outer` leaves one per column (row)."""
    group = ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()
    return any((a.get_xlabel() if axis == "x" else a.get_ylabel()).strip() for a in group.get_siblings(ax))


def _sizes(sizes) -> str:
    return ", ".join(f"{x:g} pt" for x in sizes)


def _axes_name(fig, ax) -> str:
    k = fig.axes.index(ax)
    return f"axes {k}" + (f" ({_text(ax.title) or ax.get_label()!r})" if _text(ax.title) else "")


def readability_problems(fig) -> list[str]:
    """What a reader would miss in `fig`: every visible axes holding data needs a title (or the figure a
    suptitle) and an x and a y label (its own, a shared sibling's, or the figure's supxlabel/supylabel); no text
    smaller than MIN_FONT_PT. Colorbars and empty axes are exempt."""
    problems = []
    suptitle = _text(getattr(fig, "_suptitle", None))
    supx, supy = _text(getattr(fig, "_supxlabel", None)), _text(getattr(fig, "_supylabel", None))
    for ax in fig.axes:
        if not ax.get_visible() or not _has_data(ax) or hasattr(ax, "_colorbar"):
            continue
        name = _axes_name(fig, ax)
        titled = any(ax.get_title(loc=loc).strip() for loc in ("center", "left", "right"))
        if not titled and not suptitle:
            problems.append(f"{name}: no title (and the figure has no suptitle)")
        if not (ax.get_xlabel().strip() or supx or _label_shared(ax, "x")):
            problems.append(f"{name}: no x-axis label")
        if not (ax.get_ylabel().strip() or supy or _label_shared(ax, "y")):
            problems.append(f"{name}: no y-axis label")
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        texts += [t for t in ax.get_xticklabels() + ax.get_yticklabels() if _text(t)]
        if ax.get_legend() is not None:
            texts += ax.get_legend().get_texts()
        small = sorted({round(t.get_fontsize(), 1) for t in texts if _text(t) and t.get_fontsize() < MIN_FONT_PT})
        if small:
            problems.append(f"{name}: text of {_sizes(small)} (< {MIN_FONT_PT} pt)")
    fig_texts = list(fig.texts) + [t for leg in fig.legends for t in leg.get_texts()]
    small = sorted({round(t.get_fontsize(), 1) for t in fig_texts if _text(t) and t.get_fontsize() < MIN_FONT_PT})
    if small:
        problems.append(f"figure text or legend of {_sizes(small)} (< {MIN_FONT_PT} pt)")
    return problems


def check_readable(fig, stem) -> None:
    """Raise FigureError naming `stem` and each axes at fault (see `readability_problems`)."""
    problems = readability_problems(fig)
    if problems:
        plt.close(fig)
        raise FigureError(
            f"figure {Path(stem).name}: "
            + "; ".join(problems)
            + ". Every figure needs a title and worded axis labels (tailmem.report.plots.save_figure)."
        )


def save_figure(fig, stem: Path) -> list[Path]:
    """Check that a reader can read `fig` (`check_readable`), then write `stem.png` and `stem.pdf` atomically;
    close the figure.

    The layout is computed once: one draw lays the figure out (constrained layout) and gives its tight bounding
    box, then the layout engine is dropped so each format draws once. `savefig(bbox_inches="tight")` laid out and
    drew every format twice (four layouts and four draws a figure: most of a figure stage's time)."""
    check_readable(fig, stem)
    screen_dpi = fig.dpi
    fig.set_dpi(DPI)  # lay out at the saved resolution, as savefig would (text extents snap to its pixels)
    fig.canvas.draw()
    bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(matplotlib.rcParams["savefig.pad_inches"])
    fig.set_dpi(screen_dpi)
    fig.set_layout_engine(None)  # keep the layout just computed (with the default rcParams: no engine at all)
    written = []
    for ext in ("png", "pdf"):
        target = stem.with_suffix(f".{ext}")
        with atomic_path(target) as tmp:
            fig.savefig(tmp, format=ext, dpi=DPI, bbox_inches=bbox)
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
        fit = powerlaw.Fit(data, discrete=True, xmin=xmin, verbose=0, parameter_ranges={"alpha": [1.0, tpl_alpha_max]})
        fit.plot_ccdf(ax=ax, color="black", marker=".", linestyle="none", label="empirical")
        try:
            fit.truncated_power_law.plot_ccdf(ax=ax, color="tab:red", linestyle="--", label="TPL")
        except (ArithmeticError, ValueError):  # see audit.tailfit: powerlaw's discrete TPL can fail to fit
            title += " (TPL not fitted)"
        fit.lognormal.plot_ccdf(ax=ax, color="tab:blue", linestyle=":", label="log-normal")
    ccdf_axes(ax, title, "accesses per item (x >= xmin)")


def plain_log_ticks(*axes) -> None:
    """Plain numbers at 1, 2, 5 x 10^k on log axes: a tail spans less than a decade, and the default minor labels
    collide."""
    for axis in axes:
        axis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def ccdf_axes(ax, title: str, xlabel: str, ylabel: str = "P(X >= x)") -> None:
    """Title, labels and plain x ticks of a CCDF panel."""
    ax.set_title(title, fontsize=8)
    plain_log_ticks(ax.xaxis)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)


def rank_frequency(ax, counts: np.ndarray, label: str, **style) -> None:
    """Access share of each item, most to least accessed, on log-log axes; `style` goes to `ax.loglog`."""
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    c = c[c > 0] / c.sum()
    ax.loglog(np.arange(1, len(c) + 1), c, label=label, **({"linewidth": 1} | style))


def cumulative_share(ax, counts: np.ndarray, label: str) -> None:
    """Fraction of all accesses captured by the top-ranked fraction of items."""
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    ax.plot(np.arange(1, len(c) + 1) / len(c), np.cumsum(c) / c.sum(), label=label, linewidth=1)


# Series a reader can tell apart in print and in grey: a colour, a marker and a line style per series.
COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")


def series_style(k: int) -> dict:
    """Keyword arguments of `ax.plot` for the k-th series: colour, marker and line style all differ between
    neighbouring series, and markers are hollow, so lines that coincide still show each series' marker."""
    return {
        "color": COLORS[k % len(COLORS)],
        "marker": MARKERS[k % len(MARKERS)],
        "markerfacecolor": "none",
        "linestyle": LINESTYLES[k % len(LINESTYLES)],
        "markersize": 5,
        "linewidth": 1,
    }


def offset(x, k: int, n: int, spread: float = 0.3) -> np.ndarray:
    """`x` shifted by the k-th of n evenly spaced offsets within +-spread/2 (in x units): series that share every
    point stay side by side instead of on top of each other. Say so in the caption."""
    return np.asarray(x, dtype=float) + ((k - (n - 1) / 2) * spread / max(n - 1, 1) if n > 1 else 0.0)
