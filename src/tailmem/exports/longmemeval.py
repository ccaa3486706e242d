"""LongMemEval hypotheses: one JSON object per line with `question_id` and `hypothesis`, the file LongMemEval's
src/evaluation/evaluate_qa.py reads (`python3 evaluate_qa.py <judge> <file> <reference.json>`). One file per arm
and seed, written beside that seed's rows: results/longmemeval/<dataset>/seed<s>/hypotheses/<arm>.jsonl.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tailmem.artifacts import write_text

HYPOTHESES_DIR = "hypotheses"


def hypotheses_lines(rows: pd.DataFrame) -> str:
    """JSONL of one arm's answers, in row order; every question once."""
    if rows.qid.duplicated().any():
        raise ValueError(
            f"hypotheses: question ids repeat {sorted(rows.qid[rows.qid.duplicated()].unique())[:3]}; "
            "expected the rows of one arm and one seed"
        )
    return "".join(
        json.dumps({"question_id": str(q), "hypothesis": str(a)}, ensure_ascii=False) + "\n"
        for q, a in zip(rows.qid, rows.answer)
    )


def write_hypotheses(folder: str | Path, rows: pd.DataFrame) -> list[Path]:
    """One `<arm>.jsonl` per arm of one seed's rows, under `folder/hypotheses/`."""
    if rows.seed.nunique() > 1:
        raise ValueError(f"hypotheses: rows of seeds {sorted(rows.seed.unique())}; expected one seed per folder")
    out = Path(folder) / HYPOTHESES_DIR
    return [write_text(out / f"{arm}.jsonl", hypotheses_lines(g)) for arm, g in rows.groupby("arm", sort=False)]
