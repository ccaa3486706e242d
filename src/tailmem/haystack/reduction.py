"""CTMC's token reduction against Graph Memory on LongMemEval, measured rather than configured.

The stage runs CTMC at several budgets (`longmemeval.ctmc_ratios`, each a share of Graph Memory's memory tokens on
the same question). Which budget to report is decided here, from the answers, not from the config:

1. For every CTMC arm and every question (unit) answered by both it and Graph Memory in the same seed, three paired
   differences: accuracy (CTMC - Graph Memory, 0/1 each), evidence coverage (CTMC - Graph Memory; questions
   without answer-bearing turns carry no coverage and are left out of that metric) and prompt tokens saved.
2. Non-inferiority: an arm's accuracy (coverage) is non-inferior when the claims rule of `tailmem.stats` holds
   its mean difference above -margin (`longmemeval.noninferiority_margin`): the interval wholly above it and the
   one-sided test against it agreeing. The independent unit is the question: its seeds only reorder one haystack,
   so they are resampled within the question, and the test reads each question's mean over its seeds.
3. Fixed-sequence selection: arms are tested from the largest budget down; the measured reduction is the reduction
   of the last arm before the first one whose accuracy or coverage is not shown non-inferior. Testing in a fixed
   order and stopping at the first failure keeps the chance of wrongly passing any arm at the one-sided level of a
   single interval (2.5% at 95%), where picking the best of all passing arms would not. An arm that passes only
   after a failure is shown (`step` = "passes after a failure") but never reported.

Token reduction of a question = 100 * (1 - CTMC's prompt tokens / Graph Memory's), weighted by Graph Memory's
tokens, so the mean over questions is 100 * (1 - sum CTMC / sum Graph Memory): the reduction of mean tokens per query.

What the sweep can and cannot say: when no budget fails (`reached_failure` False) the reported reduction
is only a lower bound, the sweep's last level. When CTMC's accuracy differs from Graph Memory's at no budget
(`accuracy_differs_nowhere`), non-inferiority means something only if the reader's accuracy depends on its context
at all: `context_response` compares Graph Memory's accuracy with and without the gold evidence (`NO_EVIDENCE`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from tailmem.haystack.arms import NO_EVIDENCE
from tailmem.memory.arm_names import ArmName
from tailmem.settings.stats import StatsGroup
from tailmem.stats.compare import Comparison, compare
from tailmem.stats.verdict import HELD

REFERENCE = "graph_memory"
PASSED, FAILED, AFTER_FAILURE = "passes", "fails", "passes after a failure"


@dataclass(frozen=True)
class Paired:
    """One metric of one arm against another over shared (seed, question) pairs: values, seeds, questions, weights."""

    diff: np.ndarray
    seeds: np.ndarray
    questions: np.ndarray
    weights: np.ndarray | None = None
    outcome: str = "continuous"  # "binary": of 0/1 outcomes (accuracy); "bounded": of shares (coverage)

    def compare(self, direction: str, threshold: float, settings: StatsGroup) -> Comparison:
        """The claims rule with the question as the independent unit (its seeds resampled within it)."""
        return compare(
            self.diff,
            self.questions,
            self.weights,
            direction=direction,
            threshold=threshold,
            settings=settings,
            clustered=True,
            outcome=self.outcome,
        )


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
    seeds: int = 1  # seeds the questions were answered in


def ctmc_arms(rows: pd.DataFrame) -> list[tuple[str, float]]:
    """The CTMC arms in the rows with their budget ratio, largest budget first (the testing order)."""
    arms = {a: ArmName.parse(a).ratio for a in rows.arm.unique() if ArmName.parse(a).ratio is not None}
    return sorted(arms.items(), key=lambda kv: (-kv[1], kv[0]))


def _wide(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """(seed, qid) x arm table of one column."""
    return rows.pivot_table(index=["seed", "qid"], columns="arm", values=column, aggfunc="first", dropna=False)


EMPTY = Paired(np.array([]), np.array([]), np.array([]))


def _pairs(w: pd.DataFrame, arm: str, reference: str) -> pd.DataFrame:
    return w[[arm, reference]].dropna() if arm in w and reference in w else pd.DataFrame(columns=[arm, reference])


def paired_metric(rows: pd.DataFrame, arm: str, column: str, reference: str = REFERENCE) -> Paired:
    """Per-question differences arm - reference of a 0/1 or share column; pairs with a missing side dropped. Its
    claims read paired proportions of the questions (`stats.compare`), coverage as a bounded share."""
    pair = _pairs(_wide(rows.assign(**{column: rows[column].astype(float)}), column), arm, reference)
    if pair.empty:
        return EMPTY
    index = pair.index
    return Paired(
        (pair[arm] - pair[reference]).to_numpy(float),
        index.get_level_values("seed").to_numpy(),
        index.get_level_values("qid").astype(str).to_numpy(),
        outcome="bounded" if column == "coverage" else "binary",
    )


def paired_reduction(rows: pd.DataFrame, arm: str) -> Paired:
    """Per-question token reduction in percent, weighted by Graph Memory's prompt tokens on the question."""
    pair = _pairs(_wide(rows, "prompt_tokens"), arm, REFERENCE)
    pair = pair[pair[REFERENCE] > 0]
    if pair.empty:
        return EMPTY
    gm = pair[REFERENCE].to_numpy(float)
    return Paired(
        100.0 * (1.0 - pair[arm].to_numpy(float) / gm),
        pair.index.get_level_values("seed").to_numpy(),
        pair.index.get_level_values("qid").astype(str).to_numpy(),
        gm,
    )


def evaluate(rows: pd.DataFrame, margin: float, settings: StatsGroup, accuracy: str = "correct") -> list[ArmResult]:
    """Every CTMC arm of every dataset in `rows` against Graph Memory, in testing order, with the measured one
    marked. `accuracy` names the 0/1 column scored (`correct` = substring match, paper 1's metric)."""
    out = []
    for dataset, d in rows.groupby("dataset", sort=False):
        failed = False
        results = []
        for arm, ratio in ctmc_arms(d):
            acc, cov, tok = paired_metric(d, arm, accuracy), paired_metric(d, arm, "coverage"), paired_reduction(d, arm)
            a = acc.compare("greater", -margin, settings)
            c = cov.compare("greater", -margin, settings)
            t = tok.compare("greater", 0.0, settings)
            ok = a.verdict == HELD and c.verdict == HELD
            step = (AFTER_FAILURE if ok else FAILED) if failed else (PASSED if ok else FAILED)
            failed = failed or not ok
            results.append(ArmResult(str(dataset), arm, ratio, t, a, c, step, False, int(np.unique(acc.seeds).size)))
        passed = [r for r in results if r.step == PASSED]
        if passed:
            last = passed[-1]
            results = [replace(r, measured=True) if r is last else r for r in results]
        out.extend(results)
    return out


def measured(results: list[ArmResult], dataset: str) -> ArmResult | None:
    """The arm whose reduction is the dataset's measured reduction, or None when no budget passed."""
    return next((r for r in results if r.dataset == dataset and r.measured), None)


def first_failure(results: list[ArmResult], dataset: str) -> ArmResult | None:
    """The budget that ended the sequence, or None when every budget of the sweep passed."""
    return next((r for r in results if r.dataset == dataset and r.step == FAILED), None)


def reached_failure(results: list[ArmResult], dataset: str) -> bool:
    """Did the sweep reach a budget that fails? If not, the measured reduction is a lower bound: the sweep's end."""
    return first_failure(results, dataset) is not None


def accuracy_differs_nowhere(results: list[ArmResult], dataset: str) -> bool:
    """No budget's accuracy interval excludes zero: cutting the budget never moved the accuracy."""
    arms = [r for r in results if r.dataset == dataset]
    return bool(arms) and all(r.accuracy.interval.low <= 0.0 <= r.accuracy.interval.high for r in arms)


def context_response(rows: pd.DataFrame, settings: StatsGroup, accuracy: str = "correct") -> Comparison | None:
    """Graph Memory's accuracy with the gold evidence minus without it (`NO_EVIDENCE`) on the questions answered
    both ways, claimed > 0: a reader whose accuracy does not fall cannot show that a budget kept what it needs.
    None when the check did not run (`longmemeval.context_check` = 0)."""
    if NO_EVIDENCE not in set(rows.arm):
        return None
    return paired_metric(rows, REFERENCE, accuracy, reference=NO_EVIDENCE).compare("greater", 0.0, settings)
