"""Paired sign test and Wilcoxon signed-rank test of per-unit differences, from scipy.stats.

Why both: paper 2 reports a sign test, which only asks how often one arm beats the other, and so suits 0/1
outcomes (at one step both arms are right or wrong; the sign test on the discordant pairs is McNemar's exact
test). The Wilcoxon test also weighs the size of each difference, and has more power on graded values
(per-state error rates, Gini per seed). Both treat units as independent, so they sit beside the seed-aware
bootstrap interval as a second reading, not as the verdict. Zero differences carry no sign and are dropped by
both (Wilcoxon's `zero_method="wilcox"`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class PairedTest:
    """One test's p-value on the non-zero differences; nan when there is nothing to test."""

    name: str
    p: float
    n_nonzero: int
    alternative: str


def _differences(a, b=None) -> np.ndarray:
    d = np.asarray(a, dtype=float).ravel()
    if b is not None:
        other = np.asarray(b, dtype=float).ravel()
        if other.shape != d.shape:
            raise ValueError(f"paired values need the same units, got {d.shape} and {other.shape}")
        d = d - other
    return d[np.isfinite(d)]


def sign_test(a, b=None, alternative: str = "two-sided") -> PairedTest:
    """Exact binomial test that positive and negative differences are equally likely (a - b, or a alone)."""
    d = _differences(a, b)
    pos, neg = int(np.sum(d > 0)), int(np.sum(d < 0))
    if pos + neg == 0:
        return PairedTest("sign", float("nan"), 0, alternative)
    p = stats.binomtest(pos, pos + neg, 0.5, alternative=alternative).pvalue
    return PairedTest("sign", float(p), pos + neg, alternative)


def wilcoxon_test(a, b=None, alternative: str = "two-sided") -> PairedTest:
    """Wilcoxon signed-rank test of the differences (a - b, or a alone) about zero."""
    d = _differences(a, b)
    nonzero = int(np.count_nonzero(d))
    if nonzero == 0:
        return PairedTest("wilcoxon", float("nan"), 0, alternative)
    p = stats.wilcoxon(d, zero_method="wilcox", alternative=alternative).pvalue
    return PairedTest("wilcoxon", float(p), nonzero, alternative)
