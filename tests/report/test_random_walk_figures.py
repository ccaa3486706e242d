"""Figures 3 and 5 from synthetic traces: the random walk beside the semantic policy on the same worlds, each
panel titled with its policy and fit, the line style per policy explained, and the stage end to end on files."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from figkit import assert_readable, words  # noqa: E402

from record_kit import audit_record, rollout_trace  # noqa: E402
from tailmem import outputs  # noqa: E402
from tailmem.graph_runs import figure_runs  # noqa: E402
from tailmem.studies.random_walk import figures as rwf  # noqa: E402
from tailmem.studies.random_walk import plot as figures  # noqa: E402
from tailmem.workflow import compose_config  # noqa: E402

FAMILIES = ("modular", "scale_free")


def counts(policy: str, n: int, seed: int = 0, family: str = "modular") -> np.ndarray:
    """A random walk spreads accesses (log-normal-ish); the semantic policy piles them on a few states (Zipf-ish)."""
    rng = np.random.default_rng([seed, n, len(family)])
    if policy == "random_walk":
        return np.round(rng.lognormal(2.0, 0.6, n)).astype(int)
    return np.minimum(rng.zipf(1.8, n), 2000)


def fitted(xmin: float, r: float) -> dict:
    return {"status": "ok", "xmin": xmin, "alpha": 2.4, "n_tail": 60, "R_tpl_ln": r}


TOO_SMALL = {"status": "tail_too_small", "xmin": 9.0, "n_tail": 12, "alpha": None, "R_tpl_ln": None}


def traces() -> tuple[list[rwf.Trace], list[rwf.Trace]]:
    contrast = [
        rwf.Trace(p, fam, 60, 0, counts(p, 60, family=fam), fitted(2.0, r) if fam == "modular" else TOO_SMALL)
        for fam in FAMILIES
        for p, r in (("random_walk", -1.5), ("semantic", 2.2))
    ]
    largest = [
        rwf.Trace("random_walk", fam, 120, 0, counts("random_walk", 120, family=fam), TOO_SMALL) for fam in FAMILIES
    ]
    return contrast, largest


def test_figure3_has_a_panel_per_family_and_policy_with_its_fit_or_why_there_is_none():
    contrast, largest = traces()
    fig = rwf.figure3(largest + contrast, 10.0, "Figure 3: test")
    assert_readable(fig)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert len(shown) == len(FAMILIES) * 3  # random walk n = 120 | random walk n = 60 | semantic n = 60
    titles = [ax.get_title() for ax in shown]
    for fam in FAMILIES:
        assert any(t.startswith(f"{fam}: semantic policy, n = 60") for t in titles)
        assert any(t.startswith(f"{fam}: random walk, n = 60") for t in titles)
        assert any(t.startswith(f"{fam}: random walk, n = 120") for t in titles)
    assert any("R(TPL vs LN) +2.20" in t for t in titles) and any("R(TPL vs LN) -1.50" in t for t in titles)
    assert sum("tail too small to fit: 12 states" in t for t in titles) == 4
    text = words(fig)
    assert "truncated power law (TPL)" in text and "favours the TPL" in text
    plt.close(fig)


def test_figure5_styles_lines_per_policy_and_the_legend_explains_colour_and_style():
    contrast, largest = traces()
    fig = rwf.figure5(contrast, largest, "Figure 5: test")
    assert_readable(fig)
    top_left, top_right, bottom_left, _ = fig.axes
    styles = {ln.get_label().split(", ")[1]: ln.get_linestyle() for ln in top_left.get_lines()}
    assert styles == {"random walk": "-", "semantic policy": "--"}
    assert len(top_left.get_lines()) == len(top_right.get_lines()) == len(contrast)
    assert len(bottom_left.get_lines()) == len(largest)
    text = words(fig)
    assert "policy (line style)" in text and "graph family (colour, marker)" in text
    assert "semantic policy" in text and "random walk" in text and "largest size (n = 120)" in text
    plt.close(fig)


def _write_run(results, run, tail):
    trace = run.trace_file(results)
    rollout_trace(counts(run.policy, run.n, run.seed, run.family)).write(trace)
    audit = run.audit_file(results)
    audit.parent.mkdir(parents=True, exist_ok=True)
    audit_record(tail=tail).write(audit)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore")
def test_the_stage_draws_the_study_policy_beside_the_random_walk_from_the_run_files(tmp_path):
    cfg = compose_config(
        "smoke",
        [f"results_dir={tmp_path}/results", f"figures_dir={tmp_path}/figures", "scale.families=[modular,scale_free]"],
    )
    contrast, largest = figure_runs(cfg)
    assert {r.policy for r in contrast} == {"random_walk", "semantic"} and {r.n for r in contrast} == {60}
    assert {(r.policy, r.n) for r in largest} == {("random_walk", 120)}
    for run in contrast + largest:
        _write_run(cfg.results_dir, run, fitted(2.0, 1.0) if run.family == "modular" and run.n == 60 else TOO_SMALL)
    figures.run(cfg)
    for stem in (outputs.FIG3_CCDF, outputs.FIG5_CONCENTRATION):
        assert (tmp_path / "figures" / f"{stem}.png").stat().st_size > 1000
