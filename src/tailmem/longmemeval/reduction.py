"""CTMC's token reduction against Graph Memory on LongMemEval, measured rather than configured (issue 15, finding 3).

The stage runs CTMC at several budgets (`longmemeval.ctmc_ratios`, each a share of Graph Memory's memory tokens on
the same question). Which budget to report is decided here, from the answers, not from the config:

1. For every CTMC arm and every question (unit) answered by both it and Graph Memory in the same seed, three paired
   differences: accuracy (CTMC - Graph Memory, 0/1 each), evidence coverage (CTMC - Graph Memory; questions
   without answer-bearing turns carry no coverage and are left out of that metric) and prompt tokens saved.
2. Non-inferiority: an arm's accuracy (coverage) is non-inferior when the whole bootstrap interval of its mean
   difference lies above -margin (`longmemeval.noninferiority_margin`; `tailmem.stats`, seeds as the outer level).
3. Fixed-sequence selection: arms are tested from the largest budget down; the measured reduction is the reduction
   of the last arm before the first one whose accuracy or coverage is not shown non-inferior. Testing in a fixed
   order and stopping at the first failure keeps the chance of wrongly passing any arm at the one-sided level of a
   single interval (2.5% at 95%), where picking the best of all passing arms would not. An arm that passes only
   after a failure is shown (`step` = "passes after a failure") but never reported.

Token reduction of a question = 100 * (1 - CTMC's prompt tokens / Graph Memory's), weighted by Graph Memory's
tokens, so the mean over questions is 100 * (1 - sum CTMC / sum Graph Memory): the reduction of mean tokens per query.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from tailmem.stats.compare import Comparison, compare
from tailmem.stats.settings import StatsSettings
from tailmem.stats.verdict import HELD, combine

REFERENCE = "graph_memory"
PASSED, FAILED, AFTER_FAILURE = "passes", "fails", "passes after a failure"


@dataclass(frozen=True)
class Paired:
    """One metric of one CTMC arm against Graph Memory over shared units: per-unit values, seeds, weights."""

    diff: np.ndarray
    seeds: np.ndarray
    weights: np.ndarray | None = None


@dataclass(frozen=True)
class ArmResult:
    """One CTMC arm of one dataset: its three comparisons against Graph Memory and its place in the sequence."""

    dataset: str
    arm: str
    ratio: float
    tokens: Comparison  # token reduction, percent
    accuracy: Comparison  # CTMC - Graph Memory accuracy
    coverage: Comparison  # CTMC - Graph Memory evidence coverage
    step: str  # PASSED, FAILED or AFTER_FAILURE
    measured: bool  # this arm's reduction is the dataset's measured reduction

    @property
    def noninferior(self) -> str:
        """Accuracy and coverage both non-inferior (HELD), either shown inferior (NOT HELD), or open."""
        return combine([self.accuracy.verdict, self.coverage.verdict])


def ctmc_arms(rows: pd.DataFrame) -> list[tuple[str, float]]:
    """The CTMC arms in the rows with their budget ratio, largest budget first (the testing order)."""
    arms = {a: float(a.split("-r", 1)[1]) for a in rows.arm.unique() if str(a).startswith("ctmc-r")}
    return sorted(arms.items(), key=lambda kv: (-kv[1], kv[0]))


def _wide(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """(seed, qid) x arm table of one column."""
    return rows.pivot_table(index=["seed", "qid"], columns="arm", values=column, aggfunc="first", dropna=False)


def paired_metric(rows: pd.DataFrame, arm: str, column: str) -> Paired:
    """Per-question differences arm - Graph Memory of a 0/1 or fractional column; pairs with a missing side dropped."""
    w = _wide(rows.assign(**{column: rows[column].astype(float)}), column)
    if arm not in w or REFERENCE not in w:
        return Paired(np.array([]), np.array([]))
    pair = w[[arm, REFERENCE]].dropna()
    return Paired((pair[arm] - pair[REFERENCE]).to_numpy(float), pair.index.get_level_values("seed").to_numpy())


def paired_reduction(rows: pd.DataFrame, arm: str) -> Paired:
    """Per-question token reduction in percent, weighted by Graph Memory's prompt tokens on the question."""
    w = _wide(rows, "prompt_tokens")
    if arm not in w or REFERENCE not in w:
        return Paired(np.array([]), np.array([]))
    pair = w[[arm, REFERENCE]].dropna()
    pair = pair[pair[REFERENCE] > 0]
    gm = pair[REFERENCE].to_numpy(float)
    return Paired(100.0 * (1.0 - pair[arm].to_numpy(float) / gm), pair.index.get_level_values("seed").to_numpy(), gm)


def evaluate(rows: pd.DataFrame, margin: float, settings: StatsSettings, accuracy: str = "correct") -> list[ArmResult]:
    """Every CTMC arm of every dataset in `rows` against Graph Memory, in testing order, with the measured one
    marked. `accuracy` names the 0/1 column scored (`correct` = substring match, paper 1's metric)."""
    out = []
    for dataset, d in rows.groupby("dataset", sort=False):
        failed = False
        results = []
        for arm, ratio in ctmc_arms(d):
            acc, cov, tok = paired_metric(d, arm, accuracy), paired_metric(d, arm, "coverage"), paired_reduction(d, arm)
            a = compare(acc.diff, acc.seeds, direction="greater", threshold=-margin, settings=settings)
            c = compare(cov.diff, cov.seeds, direction="greater", threshold=-margin, settings=settings)
            t = compare(tok.diff, tok.seeds, tok.weights, direction="greater", threshold=0.0, settings=settings)
            ok = a.verdict == HELD and c.verdict == HELD
            step = (AFTER_FAILURE if ok else FAILED) if failed else (PASSED if ok else FAILED)
            failed = failed or not ok
            results.append(ArmResult(str(dataset), arm, ratio, t, a, c, step, False))
        passed = [r for r in results if r.step == PASSED]
        if passed:
            last = passed[-1]
            results = [replace(r, measured=True) if r is last else r for r in results]
        out.extend(results)
    return out


def measured(results: list[ArmResult], dataset: str) -> ArmResult | None:
    """The arm whose reduction is the dataset's measured reduction, or None when no budget passed."""
    return next((r for r in results if r.dataset == dataset and r.measured), None)
