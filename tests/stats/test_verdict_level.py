"""The claims rule's false-HELD rate on each kind of outcome the claims tables read (`stats.simulate.KINDS`), with
the truth on the claim's boundary: 400 seeded data sets per kind at one size, HELD in at most 5% (the level is
2.5%; 5% is about five simulation sd above it). benchmarks/bench_verdict.py measures the same kinds at more sizes
and 1,000 data sets, with power beside it. Before bounded shares had their own test and groups were the
independent units, coverage shares, F1 and units nested in seeds or conversations failed here.

Continuous values strongly skewed against the claim (exponential, skewness 2) are HELD in about 8% at 10 units:
the sign-flip test assumes symmetry, and no test of a mean is valid for every unbounded distribution (Bahadur &
Savage 1956). It is marked as a known failure, strict, so that a fix shows up."""

import numpy as np
import pytest

from tailmem.stats.compare import compare
from tailmem.stats.group import shipped
from tailmem.stats.simulate import KINDS
from tailmem.stats.verdict import HELD

S = shipped(resamples=500)
REPS = 400


SKEWED_AGAINST = pytest.mark.xfail(strict=True, reason="sign flips assume symmetry; no valid test of an unbounded mean")


@pytest.mark.parametrize(
    "kind",
    [pytest.param(k, marks=SKEWED_AGAINST) if "against" in k.name else k for k in KINDS],
    ids=[k.name for k in KINDS],
)
def test_false_held_stays_near_the_level(kind):
    n = min(kind.units)
    rng = np.random.default_rng(sum(map(ord, kind.name)))
    held = 0
    for _ in range(REPS):
        d, groups, clustered = kind.draw(rng, kind.boundary, n)
        c = compare(
            d, groups, direction=kind.direction, threshold=kind.threshold, settings=S, clustered=clustered,
            outcome=kind.outcome,
        )  # fmt: skip
        held += c.verdict == HELD
    assert held / REPS <= 0.05, f"{kind.name} ({kind.rows}) at {n} units: HELD in {held} of {REPS} false data sets"
