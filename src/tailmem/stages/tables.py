"""Stage `tables`: the random-walk tables (paper 1 Tables 2, 7, 8, the Table 3 layout) and the claims check."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
from omegaconf import DictConfig

from tailmem import outputs
from tailmem.artifacts import read_json
from tailmem.paths import TABLES
from tailmem.provenance import save_provenance, table_footer
from tailmem.report import random_walk_tables as rw
from tailmem.report.audits import audit_frame
from tailmem.report.table_io import write_table
from tailmem.stats.settings import StatsSettings
from tailmem.stats.settings import settings as stats_settings
from tailmem.targets import Run, retrieval_runs, size_runs

log = logging.getLogger(__name__)


def load_audits(runs: list[Run], results: str) -> pd.DataFrame:
    """One row per run; a missing or corrupt audit raises ArtifactError naming the file."""
    return audit_frame((run, read_json(run.audit_file(results))) for run in runs)


def stats_note(s: StatsSettings) -> str:
    """How every claims row is decided, for the table's note."""
    return (
        f"Each compared metric: the mean difference (`estimate`) with its {100 * s.confidence:g}% paired bootstrap "
        f"interval (`ci_low`, `ci_high`; {s.resamples} replicates, seed {s.seed}; seeds resampled first, then units "
        "within each seed), two-sided sign and Wilcoxon signed-rank p of the per-unit differences, and the verdict: "
        "HELD when the whole interval lies on the claimed `side`, NOT HELD when it lies on the other side, "
        "INCONCLUSIVE otherwise (or with fewer than two units). docs/stats.md."
    )


def run(cfg: DictConfig) -> None:
    st = stats_settings(cfg)
    results = cfg.results_dir
    out = Path(cfg.out) if cfg.get("out") else Path(TABLES.format(results=results))
    sizes = load_audits(size_runs(cfg), results)
    designs = load_audits(retrieval_runs(cfg), results)
    largest = sizes[sizes.n == sizes.n.max()]
    s = cfg.scale
    seeds = f"seeds {list(s.seeds)}"
    common = (
        f"Scale `{s.name}`, policy `random_walk` (agent: random_walk), {cfg.rollout.episodes} episodes x "
        f"{cfg.rollout.steps} steps, {seeds}; ours = mean ± sd over seeds; `_paper` = paper 1's value."
    )
    tables = {
        outputs.TABLE2_SIGMA_TOP10: (
            rw.table2(sizes),
            "Table 2: random-walk control across graph sizes (sigma_top10)",
            f"{common} Retrieval `{s.table_retrieval}`. sigma_top10 = sd of the top 10% items' access counts in units of the mean count.",
        ),
        outputs.TABLE7_CONCENTRATION: (
            rw.table7(sizes),
            "Table 7: random-walk access concentration across families and sizes",
            f"{common} Retrieval `{s.table_retrieval}`. top10_pct = percent of accesses in the top 10% items.",
        ),
        outputs.TABLE8_RETRIEVAL_DESIGNS: (
            rw.table8(designs),
            "Table 8: retrieval designs under the random walk (Gini, max/median)",
            f"{common} Size {s.retrieval_size}.",
        ),
        outputs.TABLE3_RANDOM_WALK: (
            rw.table3(largest),
            "Table 3 layout: tail audit per topology (random-walk traces)",
            f"{common} Largest size; p_gof from {cfg.audit.bootstrap} bootstrap replicates, screen p_gof >= "
            f"{cfg.audit.gof_threshold}. The paper's columns are its semantic LLM policy's (Table 3), shown for reference.",
        ),
        outputs.CLAIMS_RANDOM_WALK: (
            rw.claims(sizes, designs, st),
            "Paper 1's random-walk claims, checked",
            f"{common} {stats_note(st)} Size rows: a seed's log-log slope over sizes {list(s.sizes)}; design rows: "
            f"Gini differences at size {s.retrieval_size}, equal within ±{st.gini_margin:g}; `{rw.ALL}` pools every "
            "family's graphs within each seed.",
        ),
    }
    footer = table_footer(cfg)
    for stem, (df, title, note) in tables.items():
        write_table(out, stem, df, title, note, footer)
        log.info("wrote %s", out / f"{stem}.md")
    save_provenance(out, cfg, prefix="random_walk.", agent="random_walk")
