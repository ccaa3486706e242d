"""Where a LongMemEval run keeps its rows, and how the report and the judges read them back.

A module of its own so the stages that read runs (longmemeval_report, judge_sensitivity) do not import each other.
Each function takes the composed config (a stage passes its settings' `composed`), the one the DAG names the runs
from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from tailmem import paths
from tailmem.paths import SUMMARY_FILE, agent_label, longmemeval_dir
from tailmem.records.longmemeval import LongMemEvalRows, LongMemEvalSummary
from tailmem.roles import JUDGE, SEARCHER

if TYPE_CHECKING:
    from omegaconf import DictConfig

ROWS_FILE = "rows.parquet"


def run_dir(cfg: DictConfig, dataset: str, seed: int) -> Path:
    """The run's folder under the composed config `cfg`: dataset, the models answering and judging (or
    `programmatic`), seed."""
    return longmemeval_dir(cfg.results_dir, dataset, seed, agent_label(cfg, SEARCHER, JUDGE))


def load_rows(cfg: DictConfig, datasets, seeds) -> pd.DataFrame:
    """Every run's per-question rows, each run's summary checked first (it raises with the path if missing,
    incomplete or of another format)."""
    frames = []
    for dataset in datasets:
        for seed in seeds:
            folder = run_dir(cfg, dataset, seed)
            LongMemEvalSummary.read(folder / SUMMARY_FILE)
            frames.append(LongMemEvalRows.read(folder / ROWS_FILE).frame)
    return pd.concat(frames, ignore_index=True)


def summary_files(cfg: DictConfig, results: str) -> list[str]:
    """Every LongMemEval run's summary.json (one per dataset and seed), as the DAG names them: the study's report
    and the judge panel read them."""
    run = paths.wild(paths.LONGMEMEVAL, results=results)
    agent = agent_label(cfg, SEARCHER, JUDGE)
    return [
        f"{run}/{paths.SUMMARY_FILE}".format(dataset=d, agent=agent, seed=s)
        for d in cfg.longmemeval.datasets
        for s in cfg.longmemeval.seeds
    ]
