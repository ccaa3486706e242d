"""Count the claims rows of a run that say more than their data can (a run's check that no verdict overclaims).

A HELD or NOT HELD row is an overclaim when it rests on fewer than `--min-units` units, or when the row's own
one-sided test does not reject at `--alpha` on the side it reports (p_held for HELD, p_not_held for NOT HELD).
Rows combined from parts (no n_units, no p) are checked through their parts, which are rows of their own.
It reads the tables as written (csv), so it checks the run, not the code that wrote it.

Run: python benchmarks/check_claims.py RESULTS_TABLES_DIR [--min-units 6] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd


def overclaims(table: pd.DataFrame, min_units: int, alpha: float) -> pd.DataFrame:
    """The decided rows of `table` with too few units or a test that disagrees, with the reason."""
    rows = []
    for _, row in table.iterrows():
        if row.get("verdict") not in ("HELD", "NOT HELD"):
            continue
        n = row.get("n_units")
        p = row.get("p_held") if row["verdict"] == "HELD" else row.get("p_not_held")
        why = []
        if isinstance(n, (int, float)) and math.isfinite(n) and n < min_units:
            why.append(f"{int(n)} units")
        if isinstance(p, (int, float)) and math.isfinite(p) and p > alpha:
            why.append(f"test p {p:.3g}")
        if why:
            rows.append({"claim": row["claim"], "verdict": row["verdict"], "why": "; ".join(why)})
    return pd.DataFrame(rows, columns=["claim", "verdict", "why"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tables", type=Path)
    ap.add_argument("--min-units", type=int, default=6)
    ap.add_argument("--alpha", type=float, default=0.05)
    a = ap.parse_args()
    files = sorted(a.tables.glob("claims_*.csv"))
    if not files:
        sys.exit(f"check_claims: no claims_*.csv under {a.tables}")
    total = 0
    for f in files:
        table = pd.read_csv(f)
        bad = overclaims(table, a.min_units, a.alpha)
        decided = int(table["verdict"].isin(["HELD", "NOT HELD"]).sum())
        print(f"{f.name:32} rows {len(table):4d}  decided {decided:4d}  overclaims {len(bad):3d}")
        for _, b in bad.iterrows():
            print(f"    {b.verdict}: {b.claim} ({b.why})")
        total += len(bad)
    print(f"overclaiming rows in all: {total}")


if __name__ == "__main__":
    main()
