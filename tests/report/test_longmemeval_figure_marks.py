"""Issue 17: in Figure 8 a zero-accuracy bar is told apart from a missing one. A measured zero is marked `0` at
its bar position, an arm with no question of a type `n/a`, the caption says so and explains the type
abbreviations; the figure passes save_figure's check."""

import pandas as pd
import pytest

from tailmem.haystack.arms import ctmc_name
from tailmem.report.plots import MIN_FONT_PT, readability_problems, save_figure
from tailmem.studies.longmemeval import figures as F

RATIO = 0.5
TYPES = ("single-session-user", "multi-session", "knowledge-update")


def _rows() -> pd.DataFrame:
    """One dataset, two seeds, two arms: Graph Memory answers every multi-session question wrong (accuracy 0);
    CTMC has no knowledge-update question at all (missing)."""
    rows = []
    for arm, label in (("graph_memory", "Graph Memory"), (ctmc_name(RATIO), "CTMC r=0.5")):
        for qtype in TYPES:
            if arm != "graph_memory" and qtype == "knowledge-update":
                continue
            for seed in (0, 1):
                for q in range(2):
                    correct = not (arm == "graph_memory" and qtype == "multi-session") and q == 0
                    rows.append(
                        {
                            "dataset": "oracle",
                            "arm": arm,
                            "label": label,
                            "question_type": qtype,
                            "seed": seed,
                            "prompt_tokens": 100 + 10 * q,
                            "correct": correct,
                        }
                    )
    return pd.DataFrame(rows)


def _marks(ax, gid):
    return [t for t in ax.texts if t.get_gid() == gid]


def test_zero_and_missing_bars_carry_different_marks_and_the_caption_says_so(tmp_path):
    fig = F.draw_figure8(_rows(), RATIO, "Answerer: programmatic.")
    tokens_ax, accuracy_ax = fig.axes
    # bar positions: type k, arm j at k + (j - 0.5) * 0.4; graph_memory is arm 0, CTMC arm 1
    (zero,) = _marks(accuracy_ax, F.ZERO)
    assert zero.get_text() == "0" and zero.get_position()[0] == pytest.approx(1 - 0.2)
    for ax in (tokens_ax, accuracy_ax):
        (missing,) = _marks(ax, F.MISSING)
        assert missing.get_text() == "n/a" and missing.get_position()[0] == pytest.approx(2 + 0.2)
    assert not _marks(tokens_ax, F.ZERO)  # tokens are never zero here
    assert all(t.get_fontsize() >= MIN_FONT_PT for ax in fig.axes for t in ax.texts)
    (caption,) = fig.texts
    text = caption.get_text()
    assert "marked 0 is a measured zero" in text and "n/a" in text and "not run" in text
    assert "SS = single-session" in text and "k-update = knowledge update" in text
    assert text.endswith("Answerer: programmatic.") and caption.get_fontsize() >= 8
    assert readability_problems(fig) == []
    written = save_figure(fig, tmp_path / "fig8_longmemeval")
    assert all(p.exists() for p in written)


def test_figure8_writes_through_save_figure(tmp_path):
    written = F.figure8(_rows(), tmp_path / "fig8", RATIO)
    assert sorted(p.suffix for p in written) == [".pdf", ".png"]
