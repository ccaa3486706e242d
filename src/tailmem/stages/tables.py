"""Stage `tables`: the random-walk tables (paper 1 Tables 2, 7, 8, the Table 3 layout) and the claims check."""

from __future__ import annotations

import logging
from pathlib import Path

from omegaconf import DictConfig

from tailmem.artifacts import write_text
from tailmem.paths import TABLES
from tailmem.provenance import save_provenance
from tailmem.report import random_walk_tables as rw
from tailmem.report.audits import load_audits
from tailmem.report.targets import largest_size_runs, retrieval_runs, size_runs

log = logging.getLogger(__name__)


def write_table(folder: Path, stem: str, df, title: str, note: str) -> None:
    """CSV (numbers, for code) and Markdown (for people), each written atomically."""
    write_text(folder / f"{stem}.csv", df.to_csv(index=False))
    write_text(folder / f"{stem}.md", rw.markdown(df, title, note))


def run(cfg: DictConfig) -> None:
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
        "table2_random_walk_sigma_top10": (
            rw.table2(sizes),
            "Table 2: random-walk control across graph sizes (sigma_top10)",
            f"{common} Retrieval `{s.table_retrieval}`. sigma_top10 = sd of the top 10% items' access counts in units of the mean count.",
        ),
        "table7_random_walk_concentration": (
            rw.table7(sizes),
            "Table 7: random-walk access concentration across families and sizes",
            f"{common} Retrieval `{s.table_retrieval}`. top10_pct = percent of accesses in the top 10% items.",
        ),
        "table8_retrieval_designs": (
            rw.table8(designs),
            "Table 8: retrieval designs under the random walk (Gini, max/median)",
            f"{common} Size {s.retrieval_size}.",
        ),
        "table3_tail_audit_random_walk": (
            rw.table3(largest),
            "Table 3 layout: tail audit per topology (random-walk traces)",
            f"{common} Largest size; p_gof from {cfg.audit.bootstrap} bootstrap replicates, screen p_gof >= "
            f"{cfg.audit.gof_threshold}. The paper's columns are its semantic LLM policy's (Table 3), shown for reference.",
        ),
        "claims_random_walk": (
            rw.claims(sizes, designs),
            "Paper 1's random-walk claims, checked",
            common,
        ),
    }
    for stem, (df, title, note) in tables.items():
        write_table(out, stem, df, title, note)
        log.info("wrote %s", out / f"{stem}.md")
    save_provenance(out, cfg, prefix="random_walk.", agent="random_walk")
