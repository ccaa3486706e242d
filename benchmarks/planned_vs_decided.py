"""Did a run decide what its plan said it would? The claims rows planned at `--target` power or more, their
verdicts, and the share decided (HELD or NOT HELD).

Why: the design check plans each claim's calls for a power (table `design_check`), and every claims table prints
that power beside the row's verdict (`planned_power`). A plan is judged by what it decides: of the rows planned at
80% power, about 80% should be decided, and the bar is at least 70%. Fewer means the effects are smaller
than planned or the plan's spreads are wrong. It reads the tables as written (csv), so it checks the run.

Run: python benchmarks/planned_vs_decided.py RESULTS_TABLES_DIR [--target 0.8] [--bar 0.7]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from tailmem.report.claims import PLANNED_POWER, decided_share, planned_vs_decided


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tables", type=Path, help="a run's tables folder (results/<scale>/tables)")
    ap.add_argument("--target", type=float, default=0.8, help="the planned power a row counts from")
    ap.add_argument("--bar", type=float, default=0.7, help="the share of those rows that must be decided")
    args = ap.parse_args()
    tables = {f.stem: pd.read_csv(f) for f in sorted(args.tables.glob("claims_*.csv"))}
    if not tables:
        sys.exit(f"{args.tables}: no claims_*.csv (expected a run's tables folder)")
    shown = {
        name: int(pd.to_numeric(t.get(PLANNED_POWER), errors="coerce").notna().sum()) for name, t in tables.items()
    }
    print("rows with a planned power: " + ", ".join(f"{name} {n}" for name, n in shown.items()))
    planned = planned_vs_decided(tables, args.target)
    if planned.empty:
        print(f"no row planned at >= {args.target:.0%} power: nothing to check")
        return
    print(planned.to_string(index=False))
    share = decided_share(planned)
    ok = share >= args.bar
    print(
        f"{int(planned.decided.sum())} of {len(planned)} rows planned at >= {args.target:.0%} power decided "
        f"({share:.0%}; the bar is {args.bar:.0%}: {'met' if ok else 'NOT met'})"
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
