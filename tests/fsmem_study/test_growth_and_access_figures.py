"""Issue 17: the RQ4 growth figure and the store-access CCDFs, drawn from small synthetic frames through the stages'
own figure makers and written through save_figure (so its readability check runs): every panel titled, both axes
labelled in words with a unit, a legend a reader can read, store size in KB, every series drawn apart."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tailmem.report import plots
from tailmem.studies.fsmem import access as fsmem_access
from tailmem.studies.fsmem import growth as fsmem_growth


def _atlas(chunks: int = 12) -> pd.DataFrame:
    """Per-chunk rows of two benchmarks with two conversations each; every conversation grows alike, so their
    lines coincide (the styles must still tell them apart)."""
    rows = []
    for bench, convs in (("locomo", ("conv-26", "conv-30")), ("realtalk", ("Chat_1", "Chat_2"))):
        for conv in convs:
            for c in range(1, chunks + 1):
                rows.append(
                    {
                        "benchmark": bench,
                        "conversation": conv,
                        "chunk": c,
                        "files": c,
                        "sections": 3 * c,
                        "bytes": 2048 * c,
                        "creates": 1,
                        "edits": c % 2,
                        "deletes": 0,
                        "early_alive": 1.0 if c < 8 else 0.5,
                        "build tool calls": 4,
                        "build rounds": 2,
                        "build tokens": 0,
                    }
                )
    return pd.DataFrame(rows)


def _has_unit(label: str) -> bool:
    return "(" in label and label.rstrip().endswith(")")


def _assert_panels_worded(fig) -> None:
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        assert ax.get_title().strip(), "a panel without a title"
        assert _has_unit(ax.get_xlabel()), f"x label without a unit: {ax.get_xlabel()!r}"
        assert _has_unit(ax.get_ylabel()) or "P(X >= x)" in ax.get_ylabel(), f"y label: {ax.get_ylabel()!r}"


def test_growth_figure_is_titled_labelled_in_kb_and_passes_save_figure(tmp_path):
    df = _atlas()
    fig = fsmem_growth.growth_figure(df, "agent_curated", 0.25)
    _assert_panels_worded(fig)
    assert plots.readability_problems(fig) == []
    by_title = {ax.get_title(): ax for ax in fig.axes if ax.get_visible()}
    assert len(by_title) == 6
    size = by_title["Store size"]
    assert "KB" in size.get_ylabel() and "1024 bytes" in size.get_ylabel()
    assert max(max(ln.get_ydata()) for ln in size.get_lines()) == pytest.approx(df["bytes"].max() / 1024)
    for ax in by_title.values():
        assert ax.get_xlabel() == "chunks integrated (count)"
        styles = [(ln.get_color(), ln.get_linestyle(), ln.get_marker()) for ln in ax.get_lines()]
        assert len(styles) == 4 and len(set(styles)) == 4, f"series look alike in {ax.get_title()!r}: {styles}"
        assert all(ln.get_markerfacecolor() == "none" for ln in ax.get_lines())  # coinciding lines stay visible
    (legend,) = fig.legends
    assert all(t.get_fontsize() >= plots.MIN_FONT_PT for t in legend.get_texts())
    assert {t.get_text() for t in legend.get_texts()} == {
        "locomo conv-26",
        "locomo conv-30",
        "realtalk Chat_1",
        "realtalk Chat_2",
    }
    assert "line style = benchmark" in legend.get_title().get_text()
    assert "25%" in fig._suptitle.get_text()  # the early phase is defined on the figure
    written = plots.save_figure(fig, tmp_path / "fsmem_rq4_growth")
    assert sorted(p.name for p in written) == ["fsmem_rq4_growth.pdf", "fsmem_rq4_growth.png"]


AUDIT = SimpleNamespace(top_fraction=0.1, pl_alpha_max=10.0, tpl_alpha_max=10.0, bootstrap=0)


def _fits(unit: str):
    rng = np.random.default_rng(3)
    heavy = np.minimum(rng.zipf(2.0, 400), 300).astype(float)  # a tail powerlaw can fit
    heavy[:40] = 0.0  # unread items
    small = np.array([0, 0, 1, 1, 2, 3, 5], dtype=float)  # too few items in the tail
    out = []
    for title, counts in (("locomo agent_curated center", heavy), ("realtalk agent_curated bash", small)):
        out.append((title, counts, fsmem_access.audit_counts(counts, AUDIT, 0)))
    return out


@pytest.mark.parametrize("unit", ["file", "section"])
def test_access_ccdf_figure_is_titled_labelled_and_passes_save_figure(tmp_path, unit):
    fits = _fits(unit)
    assert [f[2]["tail"] for f in fits][0] == "ok" and fits[1][2]["tail"] != "ok"  # both branches are drawn
    fig = fsmem_access.ccdf_figure(unit, fits, AUDIT.tpl_alpha_max)
    _assert_panels_worded(fig)
    assert plots.readability_problems(fig) == []
    fitted, plain = [ax for ax in fig.axes if ax.get_visible()]
    for ax in (fitted, plain):
        assert f"reads per {unit} (count" in ax.get_xlabel()
        legend = ax.get_legend()
        assert legend is not None and all(t.get_fontsize() >= plots.MIN_FONT_PT for t in legend.get_texts())
    assert "tail x >=" in fitted.get_xlabel() and "tail items" in fitted.get_ylabel()
    assert {"empirical", "TPL", "log-normal"} <= {t.get_text() for t in fitted.get_legend().get_texts()}
    assert "not fitted" in plain.get_title()
    assert "TPL = truncated power law" in fig._suptitle.get_text()  # the abbreviation is explained
    written = plots.save_figure(fig, tmp_path / f"fsmem_access_ccdf_{unit}")
    assert all(p.stat().st_size > 0 for p in written)
