"""Paper 2's paired sign test of per-unit differences about zero (scipy.stats.binomtest), for its `sign_p_1s` column.

It only asks how often one arm beats the other, which suits 0/1 outcomes (at one step both arms are right or
wrong; the sign test on the discordant pairs is McNemar's exact test) and is the test paper 2 reports (D.1). Zero
differences carry no sign and are dropped. It is a labelled extra beside a row, not the row's test: that is the
sign-flip test of the mean against the claim's threshold (`stats.sign_flip`), or for yes/no outcomes the exact
test of paired proportions (`stats.paired_proportions`), both through `stats.compare`.
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
