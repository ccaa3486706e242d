"""save_figure refuses a figure a reader cannot read on its own: an axes with data but no title (and no
suptitle), no x or y label, or text below the minimum font size. The error names the figure stem and the axes."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from tailmem.report.plots import FigureError, readability_problems, save_figure  # noqa: E402


def _line(title="", xlabel="", ylabel=""):
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2])
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig, ax


@pytest.mark.slow
def test_a_complete_figure_is_written(tmp_path):
    fig, _ = _line("Errors per step", "step", "errors (count)")
    written = save_figure(fig, tmp_path / "good")
    assert sorted(p.name for p in written) == ["good.pdf", "good.png"]
    assert all(p.stat().st_size > 0 for p in written)


@pytest.mark.parametrize(
    "missing, words",
    [
        ({"title": ""}, "no title"),
        ({"xlabel": ""}, "no x-axis label"),
        ({"ylabel": ""}, "no y-axis label"),
    ],
)
def test_a_missing_title_or_label_stops_the_save_naming_stem_and_axes(tmp_path, missing, words):
    parts = {"title": "Errors per step", "xlabel": "step", "ylabel": "errors (count)"} | missing
    fig, _ = _line(**parts)
    with pytest.raises(FigureError) as err:
        save_figure(fig, tmp_path / "my_figure_stem")
    assert "my_figure_stem" in str(err.value)
    assert "axes 0" in str(err.value)
    assert words in str(err.value)
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_a_suptitle_stands_in_for_panel_titles():
    fig, axes = plt.subplots(1, 2)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
        ax.set_xlabel("chunk")
        ax.set_ylabel("files")
    assert any("no title" in p for p in readability_problems(fig))
    fig.suptitle("Store growth")
    assert readability_problems(fig) == []
    plt.close(fig)


def test_a_shared_axis_label_counts_for_its_siblings():
    fig, axes = plt.subplots(2, 1, sharex=True)
    for ax, name in zip(axes, ("files", "sections")):
        ax.plot([0, 1], [0, 1])
        ax.set_title(name)
        ax.set_ylabel(f"{name} (count)")
    axes[1].set_xlabel("chunk")
    assert readability_problems(fig) == []
    plt.close(fig)


def test_the_second_axes_is_named_when_only_it_is_unlabelled():
    fig, axes = plt.subplots(1, 2)
    for ax in axes:
        ax.bar(["a", "b"], [1, 2])
        ax.set_title("tokens")
        ax.set_xlabel("arm")
    axes[0].set_ylabel("tokens per step")
    problems = readability_problems(fig)
    assert problems == ["axes 1 ('tokens'): no y-axis label"]
    plt.close(fig)


def test_hidden_and_empty_axes_are_exempt():
    fig, axes = plt.subplots(1, 3)
    axes[0].plot([0, 1], [1, 0])
    axes[0].set(title="one panel", xlabel="x (units)", ylabel="y (units)")
    axes[1].set_visible(False)  # panel_grid hides the unused cells
    # axes[2] is visible but holds nothing
    assert readability_problems(fig) == []
    plt.close(fig)


def test_text_too_small_to_read_is_refused():
    fig, ax = _line("Errors per step", "step", "errors (count)")
    ax.plot([1, 2], [2, 2], label="a series")
    ax.legend(fontsize=5)
    assert any("text of 5 pt" in p for p in readability_problems(fig))
    ax.legend(fontsize=8)
    fig.text(0, 0, "a caption", fontsize=6)
    assert any("figure text" in p and "6 pt" in p for p in readability_problems(fig))
    plt.close(fig)


@pytest.mark.slow
def test_one_layout_saves_the_same_picture_as_matplotlibs_tight_savefig(tmp_path):
    """save_figure lays a figure out once and drops the layout engine; the PNG must be what matplotlib's own
    `savefig(bbox_inches="tight")` of a constrained-layout figure writes: same size, nothing cropped."""
    import numpy as np
    from PIL import Image

    def make():
        fig, axes = plt.subplots(2, 3, figsize=(9, 5), layout="constrained")
        for k, ax in enumerate(axes.flat):
            ax.loglog(np.arange(1, 50), np.arange(1, 50) ** -(1 + k / 3), label=f"series {k}")
            ax.set_title(f"panel {k}: a title long enough to need room")
            ax.set_xlabel("rank of the item")
            ax.set_ylabel("share of accesses")
        axes.flat[0].legend()
        fig.suptitle("a suptitle above every panel")
        return fig

    ours = save_figure(make(), tmp_path / "ours")[0]
    ref = make()
    ref.savefig(tmp_path / "ref.png", format="png", dpi=150, bbox_inches="tight")
    plt.close(ref)
    a = np.asarray(Image.open(ours).convert("L"), dtype=float)
    b = np.asarray(Image.open(tmp_path / "ref.png").convert("L"), dtype=float)
    assert abs(a.shape[0] - b.shape[0]) <= 2 and abs(a.shape[1] - b.shape[1]) <= 2, (a.shape, b.shape)
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    assert np.mean(np.abs(a[:h, :w] - b[:h, :w]) > 64) < 0.02  # the same picture, up to antialiasing
