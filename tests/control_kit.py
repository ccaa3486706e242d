"""Shared by the controller tests that plant per-step rows: the per-run summaries a control job would write.

Why one place: the claims-power and planned-cells tests build steps of their own shape (which steps differ, which
are called) but summarise them the same way the control stage does (error over every step and over the tail)."""

from __future__ import annotations

import pandas as pd

from tailmem.control.replay import error_rate


def run_summaries(steps: pd.DataFrame) -> pd.DataFrame:
    """One summary row per (arm, family, seed) of planted `steps`: overall and tail error, 100 tokens a step,
    full coverage (what these tests do not vary)."""
    return pd.DataFrame(
        [
            {"arm": arm, "family": fam, "seed": seed, "label": arm, "encoding": "compact"}
            | {"tokens_per_step": 100.0, "overall_error": error_rate(run), "tail_error": error_rate(run[run.in_tail])}
            | {"overall_coverage": 1.0, "tail_coverage": 1.0}
            for (arm, fam, seed), run in steps.groupby(["arm", "family", "seed"])
        ]
    )
