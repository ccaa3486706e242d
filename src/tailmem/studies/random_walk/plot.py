"""Stage `figures`: paper 1 Figure 3 (CCDFs with fitted tails) and Figure 5 (rank-frequency, cumulative share):
the random walk beside the controller study's policy on the same worlds (each family at the control size, first
control seed), and the random walk at the largest size."""

from __future__ import annotations

import logging
from dataclasses import asdict

from tailmem import outputs
from tailmem.graph_runs import Run, figure_runs
from tailmem.paths import out_dir
from tailmem.provenance import save_provenance
from tailmem.records.audit import Audit
from tailmem.records.rollout import RolloutTrace
from tailmem.report import plots
from tailmem.roles import contrast_policies
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.random_walk import figures as rwf

log = logging.getLogger(__name__)


def load_trace(run: Run, results: str) -> rwf.Trace:
    """A run's access counts (its rollout's trace.npz) and its audit's tail block; a missing file raises
    ArtifactError naming it."""
    counts = RolloutTrace.read(run.trace_file(results))["counts"]
    tail = asdict(Audit.read(run.audit_file(results)).tail)  # the figure's captions read the block by key
    return rwf.Trace(run.policy, run.family, run.n, run.seed, counts, tail)


@typed_stage("figures")
def run(cfg: StageSettings) -> None:
    results = cfg.results_dir
    out = out_dir(cfg, cfg.figures_dir)
    contrast_runs, largest_runs = figure_runs(cfg.composed)
    contrast = [load_trace(r, results) for r in contrast_runs]
    largest = [load_trace(r, results) for r in largest_runs]
    c = cfg.scale.control
    names = " beside the ".join(rwf.policy_label(p) for p in contrast_policies(cfg.composed))
    design = (
        f"retrieval {c.retrieval}"
        if c.retrieval == cfg.scale.table_retrieval
        else f"retrieval {c.retrieval}, largest-size random walk {cfg.scale.table_retrieval}"
    )
    setting = f"{design}, {cfg.rollout.episodes} episodes x {cfg.rollout.steps} steps"

    fig = rwf.figure3(
        largest + contrast,
        cfg.audit.tpl_alpha_max,
        f"Figure 3: access CCDFs with fitted tails, the {names} ({setting})",
    )
    plots.save_figure(fig, out / outputs.FIG3_CCDF)
    fig = rwf.figure5(contrast, largest, f"Figure 5: access concentration, the {names} ({setting})")
    plots.save_figure(fig, out / outputs.FIG5_CONCENTRATION)
    agents = dict.fromkeys(f"{r.policy} ({r.agent})" for r in contrast_runs + largest_runs)
    save_provenance(out, cfg, prefix="random_walk.", agent=", ".join(agents))
    log.info("wrote figures under %s", out)
