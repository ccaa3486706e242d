"""One compared metric of a claims row: paired differences in, interval + tests + verdict out.

The report modules build the per-unit differences (their unit, their seeds); this module is the one place that
turns them into the columns every claims table shares, so all claims read alike:
`estimate, ci_low, ci_high` (the mean difference and its bootstrap interval), `n_units, n_seeds`, `side`
(the side of the threshold the claim names), `sign_p, wilcoxon_p` (two-sided, of the differences about zero) and `verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tailmem.stats.bootstrap import Interval, mean_interval
from tailmem.stats.paired_tests import sign_test, wilcoxon_test
from tailmem.stats.settings import StatsSettings
from tailmem.stats.verdict import INCONCLUSIVE, claim_text, verdict

COLUMNS = ("estimate", "ci_low", "ci_high", "n_units", "n_seeds", "side", "sign_p", "wilcoxon_p", "verdict")


@dataclass(frozen=True)
class Comparison:
    interval: Interval
    direction: str
    threshold: float
    sign_p: float
    wilcoxon_p: float

    @property
    def verdict(self) -> str:
        return verdict(self.interval.low, self.interval.high, self.direction, self.threshold)

    def row(self) -> dict:
        """The shared claims columns (`COLUMNS`)."""
        i = self.interval
        return {"estimate": i.estimate, "ci_low": i.low, "ci_high": i.high, "n_units": i.n_units,
                "n_seeds": i.n_groups, "side": claim_text(self.direction, self.threshold),
                "sign_p": self.sign_p, "wilcoxon_p": self.wilcoxon_p, "verdict": self.verdict}


def compare(diff, groups=None, weights=None, *, direction: str, threshold: float = 0.0,
            settings: StatsSettings) -> Comparison:
    """Interval of the (weighted) mean of the per-unit differences `diff`, seeds `groups` resampled first, with
    the sign and Wilcoxon tests of the same differences and the verdict for (`direction`, `threshold`)."""
    d = np.asarray(diff, dtype=float).ravel()
    interval = mean_interval(d, groups, weights, settings.confidence, settings.resamples, settings.seed)
    return Comparison(interval, direction, float(threshold), sign_test(d).p, wilcoxon_test(d).p)


def missing(side: str = "") -> dict:
    """The shared columns of a row whose data is absent: no interval, INCONCLUSIVE."""
    nan = float("nan")
    return {"estimate": nan, "ci_low": nan, "ci_high": nan, "n_units": 0, "n_seeds": 0, "side": side,
            "sign_p": nan, "wilcoxon_p": nan, "verdict": INCONCLUSIVE}
