"""The verdict from an interval, and a compared metric that flips when its effect sinks below the noise."""

import numpy as np
import pytest

from tailmem.stats.compare import compare
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD, combine, verdict


@pytest.mark.parametrize(
    "low, high, direction, threshold, expected",
    [
        (0.1, 0.3, "greater", 0.0, HELD),
        (-0.3, -0.1, "greater", 0.0, NOT_HELD),
        (-0.1, 0.3, "greater", 0.0, INCONCLUSIVE),
        (-0.3, -0.1, "less", 0.0, HELD),
        (0.1, 0.3, "less", 0.0, NOT_HELD),
        (0.005, 0.008, "less", 0.01, HELD),  # non-inferiority: worse by less than the margin
        (0.005, 0.02, "less", 0.01, INCONCLUSIVE),
        (-0.02, 0.03, "within", 0.05, HELD),
        (0.06, 0.09, "within", 0.05, NOT_HELD),
        (0.01, 0.09, "within", 0.05, INCONCLUSIVE),
        (float("nan"), float("nan"), "greater", 0.0, INCONCLUSIVE),
    ],
)
def test_verdict(low, high, direction, threshold, expected):
    assert verdict(low, high, direction, threshold) == expected


def test_bad_direction_or_reversed_interval():
    with pytest.raises(ValueError, match="direction"):
        verdict(0, 1, "bigger")
    with pytest.raises(ValueError, match="reversed"):
        verdict(1, 0, "greater")


def test_combine():
    assert combine([HELD, HELD]) == HELD
    assert combine([HELD, INCONCLUSIVE]) == INCONCLUSIVE
    assert combine([HELD, INCONCLUSIVE, NOT_HELD]) == NOT_HELD
    assert combine([]) == INCONCLUSIVE


def test_a_claim_flips_from_held_to_inconclusive_when_the_effect_shrinks_below_the_noise():
    """Same noise (sd 1 over 8 seeds x 15 units), effect 0.6 then 0.02: HELD, then INCONCLUSIVE."""
    s = shipped(resamples=2000, seed=0)
    rng = np.random.default_rng(4)
    groups = np.repeat(np.arange(8), 15)
    noise = rng.normal(0, 1, groups.size)
    strong = compare(0.6 + noise - noise.mean(), groups, direction="greater", settings=s)
    weak = compare(0.02 + noise - noise.mean(), groups, direction="greater", settings=s)
    assert strong.verdict == HELD and strong.row()["ci_low"] > 0 and strong.row()["p_held"] < 0.025
    assert weak.verdict == INCONCLUSIVE and weak.row()["ci_low"] < 0 < weak.row()["ci_high"]
    assert set(strong.row()) == {
        "estimate",
        "ci_low",
        "ci_high",
        "ci_method",
        "n_units",
        "n_seeds",
        "side",
        "p_held",
        "p_not_held",
        "verdict",
        "reason",
    }
