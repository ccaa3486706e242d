"""Which claims rows hang on the judge: the same claims recomputed with each judge's verdicts, side by side.

A row is `judge_sensitive` when its verdict is not the same under every judge (HELD under one, NOT HELD or
INCONCLUSIVE under another); it is `robust` (`held_under_every_judge`) only when it is HELD under every one. A
row no judge can move (a search-cost claim, a claim scored by token F1 because no judge covered its questions)
has the same verdict under each and is not judge-sensitive. The recomputation itself is the claims module's own
(`studies.fsmem.claims.claims`, `studies.longmemeval.tables.claims`), handed other correctness columns.
"""

from __future__ import annotations

import pandas as pd

from tailmem.errors import DataError
from tailmem.stats.verdict import HELD

SENSITIVE, ROBUST = "judge_sensitive", "held_under_every_judge"


def verdict_column(judge: str) -> str:
    return f"verdict_{judge}"


def with_sensitivity(base: pd.DataFrame, by_judge: dict[str, pd.DataFrame], key: str = "claim") -> pd.DataFrame:
    """`base` (the claims table as written) with a `verdict_<judge>` column per judge, `judge_sensitive` and
    `held_under_every_judge`. Each frame of `by_judge` holds the same claims rows in the same order (the same
    claims function on the same arms); a row whose `key` differs is an error, never a silent misalignment."""
    out = base.reset_index(drop=True).copy()
    for judge, df in by_judge.items():
        df = df.reset_index(drop=True)
        if len(df) != len(out) or (df[key].astype(str) != out[key].astype(str)).any():
            raise DataError(
                f"claims under judge {judge!r}: {len(df)} rows that do not line up with the table's "
                f"{len(out)} (column {key!r}); the claims must be recomputed on the same arms"
            )
        out[verdict_column(judge)] = df["verdict"].astype(str).to_numpy()
    cols = [verdict_column(j) for j in by_judge]
    out[SENSITIVE] = out[cols].nunique(axis=1).gt(1) if cols else False
    out[ROBUST] = out[cols].eq(HELD).all(axis=1) if cols else False
    return out


NOTE = (
    "verdict_<judge> = the row's verdict with correctness taken from that judge's verdicts on the same answers "
    "(table judge_sensitivity; judges: paper = paper 2's correctness judge, per_type = LongMemEval's per-type "
    "judge, gist = a lenient judge, each played by the judge role, or its stated token rule offline); "
    "judge_sensitive = the verdict is not the same under every judge; held_under_every_judge = HELD under each "
    "(a claim is robust only then)."
)
