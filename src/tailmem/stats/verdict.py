"""HELD / NOT HELD / INCONCLUSIVE from an interval, the claim's test and the number of units (DESIGN.md section 9).

A claim names a side of a threshold for a difference: "greater" (the difference exceeds it), "less" (it stays
below it) or "within" (|difference| stays below a margin: equivalence). A margin moves the threshold, e.g. a
non-inferiority claim "CTMC's error is no worse than Graph Memory's by more than m" is ("less", m).

`verdict` reads the interval alone: HELD when it lies wholly on the claim's side, NOT HELD when wholly on the
other, INCONCLUSIVE when it straddles the threshold or is undefined. `decide` makes the row's verdict: the
interval's, only when the row's own test agrees at the same one-sided level and there are at least
`stats.min_units` units; otherwise INCONCLUSIVE with the reason. Why both: at small n a percentile interval can
exclude the threshold when no test can (three units of one sign: exact p 1/8), and a reader who sees HELD beside
p = 0.25 cannot tell which to believe.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tailmem.settings.stats import StatsGroup

HELD, NOT_HELD, INCONCLUSIVE = "HELD", "NOT HELD", "INCONCLUSIVE"
DIRECTIONS = ("greater", "less", "within")


def verdict(low: float, high: float, direction: str, threshold: float = 0.0) -> str:
    """The verdict of the interval [low, high] for a claim that the difference is `direction` of `threshold`."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction {direction!r}: expected one of {DIRECTIONS}")
    if not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    if low > high:
        raise ValueError(f"interval [{low}, {high}] has its ends reversed")
    if direction == "greater":
        return HELD if low > threshold else NOT_HELD if high < threshold else INCONCLUSIVE
    if direction == "less":
        return HELD if high < threshold else NOT_HELD if low > threshold else INCONCLUSIVE
    margin = abs(threshold)
    if -margin < low and high < margin:
        return HELD
    return NOT_HELD if low > margin or high < -margin else INCONCLUSIVE


def decide(
    interval_verdict: str, p_held: float, p_not_held: float, n_units: int, settings: "StatsGroup"
) -> tuple[str, str]:
    """(verdict, reason) of a row whose interval reads `interval_verdict`; `p_held` is the one-sided p of the test
    whose rejection supports HELD, `p_not_held` of the test supporting NOT HELD. The reason is empty when decided."""
    alpha, least = settings.alpha, settings.min_units
    if n_units < least:
        return INCONCLUSIVE, f"too few units ({n_units}; stats.min_units {least})"
    for side, p in ((HELD, p_held), (NOT_HELD, p_not_held)):
        if interval_verdict == side:
            if p <= alpha:
                return side, ""
            name = "p_held" if side == HELD else "p_not_held"
            return INCONCLUSIVE, f"test disagrees ({name} {p:.3g} > {alpha:g})"
    reason = "interval crosses the threshold"
    for side, p in ((HELD, p_held), (NOT_HELD, p_not_held)):
        if p <= alpha:
            reason += f"; the test alone would say {side} (p {p:.3g})"
    return INCONCLUSIVE, reason


def combine(verdicts) -> str:
    """A claim made of parts (an ordering of four arms) holds when every part holds and fails when any part
    fails; otherwise it is open."""
    vs = list(verdicts)
    if not vs:
        return INCONCLUSIVE
    if any(v == NOT_HELD for v in vs):
        return NOT_HELD
    return HELD if all(v == HELD for v in vs) else INCONCLUSIVE


def combine_reason(verdicts) -> str:
    """Why a combined row is not HELD: how many parts failed or stayed open; empty when every part holds."""
    vs = list(verdicts)
    if not vs:
        return "no parts"
    for bad in (NOT_HELD, INCONCLUSIVE):
        k = sum(v == bad for v in vs)
        if k:
            return f"{k} of {len(vs)} parts {bad}"
    return ""


def claim_text(direction: str, threshold: float = 0.0) -> str:
    """The side a claim names, for a table column: `> 0`, `< 0.5`, `|d| < 0.05`."""
    if direction == "within":
        return f"|d| < {abs(threshold):g}"
    return f"{'>' if direction == 'greater' else '<'} {threshold:g}"
