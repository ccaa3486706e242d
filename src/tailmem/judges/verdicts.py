"""Where the judge panel's per-answer verdicts live and how a claims table reads them back.

The judge-sensitivity stage writes them once; the filesystem-memory and LongMemEval claims stages read them to
say which of their verdicts depend on the judge.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.records.judges import JudgeVerdicts
from tailmem.roles import JUDGE

log = logging.getLogger("tailmem")


def verdicts_path(results_dir) -> Path:
    """Where the per-answer verdicts live (the claims stages read them from here)."""
    return Path(results_dir) / "tables" / outputs.JUDGE_VERDICTS


def fsmem_answers_key(results_dir, answers_file) -> str:
    """An fsmem answer set's key in the verdicts: its answers.json relative to the results folder."""
    return os.path.relpath(Path(answers_file), Path(results_dir))


def lme_answers_key(dataset, seed, arm) -> str:
    return f"{dataset}/seed{int(seed)}/{arm}"


def read_verdicts(cfg) -> pd.DataFrame | None:
    """The verdicts the stage wrote, or None when it has not run (the claims tables then carry no judge columns)."""
    path = verdicts_path(cfg.results_dir)
    if not path.exists():
        log.warning("%s: missing, so the claims carry no per-judge verdicts; run rule judge_sensitivity first", path)
        return None
    return JudgeVerdicts.read(path).frame


def verdict_map(verdicts: pd.DataFrame, judge: str) -> dict[tuple[str, str], float]:
    """(answers key, qid) -> the judge's verdict (NaN unreadable)."""
    v = verdicts[verdicts[JUDGE] == judge]
    return dict(zip(zip(v["answers"].astype(str), v["qid"].astype(str)), v["correct"].astype(float)))
