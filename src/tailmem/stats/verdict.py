"""HELD / NOT HELD / INCONCLUSIVE from an interval and the claim's direction (DESIGN.md section 9).

A claim names a side of a threshold for a difference: "greater" (the difference exceeds it), "less" (it stays
below it) or "within" (|difference| stays below a margin: equivalence). The verdict is HELD when the whole
interval lies on the claim's side, NOT HELD when the whole interval lies on the other side, INCONCLUSIVE when the
interval straddles the threshold or cannot be estimated (too few units). A margin moves the threshold, e.g. a
non-inferiority claim "CTMC's error is no worse than Graph Memory's by more than m" is ("less", m).
"""

from __future__ import annotations

import math

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


def combine(verdicts) -> str:
    """A claim made of parts (an ordering of four arms) holds when every part holds and fails when any part
    fails; otherwise it is open."""
    vs = list(verdicts)
    if not vs:
        return INCONCLUSIVE
    if any(v == NOT_HELD for v in vs):
        return NOT_HELD
    return HELD if all(v == HELD for v in vs) else INCONCLUSIVE


def claim_text(direction: str, threshold: float = 0.0) -> str:
    """The side a claim names, for a table column: `> 0`, `< 0.5`, `|d| < 0.05`."""
    if direction == "within":
        return f"|d| < {abs(threshold):g}"
    return f"{'>' if direction == 'greater' else '<'} {threshold:g}"
