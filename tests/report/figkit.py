"""What the figure tests check on a drawn (unsaved) matplotlib figure."""

import numpy as np

from tailmem.report.plots import readability_problems


def assert_readable(fig) -> None:
    """Titles, worded x/y labels and legible text everywhere (the check save_figure runs)."""
    assert readability_problems(fig) == []


def words(fig) -> str:
    """Every piece of text a reader sees: suptitle, captions, titles, labels, legend entries and titles."""
    parts = [t.get_text() for t in fig.texts]
    if getattr(fig, "_suptitle", None) is not None:
        parts.append(fig._suptitle.get_text())
    for ax in fig.axes:
        parts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()] + [t.get_text() for t in ax.texts]
        if ax.get_legend() is not None:
            parts += [t.get_text() for t in ax.get_legend().get_texts()] + [ax.get_legend().get_title().get_text()]
    return "\n".join(parts)


def assert_lines_apart(ax, offset: bool = False) -> None:
    """Every line of `ax` has its own marker; two lines on exactly the same points must have hollow markers (both
    shapes stay visible), and with `offset` no two lines may share all their points."""
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata())]
    markers = [ln.get_marker() for ln in lines]
    assert len(set(markers)) == len(lines), f"markers {markers} repeat in {ax.get_title()!r}"
    for i, a in enumerate(lines):
        for b in lines[i + 1 :]:
            same_x = np.array_equal(np.asarray(a.get_xdata(), float), np.asarray(b.get_xdata(), float))
            same_y = np.array_equal(np.asarray(a.get_ydata(), float), np.asarray(b.get_ydata(), float))
            if same_x and same_y:
                where = f"{a.get_label()} and {b.get_label()} coincide in {ax.get_title()!r}"
                assert not offset, where
                assert a.get_markerfacecolor() == "none" and b.get_markerfacecolor() == "none", where
