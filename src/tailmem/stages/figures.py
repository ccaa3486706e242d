"""Stage `figures`: paper 1 Figure 3 (CCDFs with fitted tails) and Figure 5 (rank-frequency, cumulative share)
for the random-walk traces, each family at the largest size."""

from __future__ import annotations

import logging
from pathlib import Path

from omegaconf import DictConfig

from tailmem import outputs
from tailmem.artifacts import read_json, read_npz
from tailmem.provenance import save_provenance
from tailmem.report import plots
from tailmem.targets import largest_size_runs

log = logging.getLogger(__name__)


def _num(value, spec: str) -> str:
    """A fitted number for a title, or "-" where the fit gave none (a tail too small to fit)."""
    return "-" if value is None else format(value, spec)


def run(cfg: DictConfig) -> None:
    results = cfg.results_dir
    out = Path(cfg.out) if cfg.get("out") else Path(cfg.figures_dir)
    runs = largest_size_runs(cfg)
    counts = {r.family: read_npz(r.trace_file(results), required=("counts",))["counts"] for r in runs}
    audits = {r.family: read_json(r.audit_file(results)) for r in runs}
    n = runs[0].n
    policy = f"random walk, retrieval {runs[0].retrieval}, n = {n}, seed {runs[0].seed}"

    fig, axes = plots.panel_grid(len(runs))
    for ax, r in zip(axes, runs):
        tail = audits[r.family]["tail"]
        title = (f"{r.family}\nalpha {_num(tail.get('alpha'), '.2f')}, xmin {_num(tail.get('xmin'), '.0f')}, "
                 f"R(TPL vs LN) {_num(tail.get('R_tpl_ln'), '.2f')}")
        plots.ccdf_with_tails(ax, counts[r.family], tail["xmin"], cfg.audit.tpl_alpha_max, title)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Figure 3: access CCDFs with fitted tails ({policy})", fontsize=10)
    plots.save_figure(fig, out / outputs.FIG3_CCDF)

    fig, (left, right) = plots.plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    for r in runs:
        plots.rank_frequency(left, counts[r.family], r.family)
        plots.cumulative_share(right, counts[r.family], r.family)
    left.set_xlabel("rank")
    left.set_ylabel("normalised access frequency")
    right.set_xlabel("top-ranked fraction of items")
    right.set_ylabel("cumulative share of accesses")
    right.legend(fontsize=7)
    fig.suptitle(f"Figure 5: access concentration ({policy})", fontsize=10)
    plots.save_figure(fig, out / outputs.FIG5_CONCENTRATION)
    save_provenance(out, cfg, prefix="random_walk.", agent="random_walk")
    log.info("wrote figures under %s", out)
