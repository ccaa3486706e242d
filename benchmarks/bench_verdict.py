"""Realised coverage and false-HELD rate of the claims rule against planted effects, beside the old rule.

For each n (units) and planted mean difference, many data sets are drawn; each is read as a claim "> 0" by
`tailmem.stats.compare` (the rule: exact interval and sign-flip test up to 15 units, bootstrap above, at least
`stats.min_units` units, interval and test agreeing) and by the old rule (percentile bootstrap interval alone).
Printed per cell: how often the 95% interval holds the planted mean (nominal 0.95), and how often the claim is
HELD: with no effect that is a false HELD (nominal at most 0.025, the one-sided level of the interval), with an
effect it is the power. A last block plants the truth on the margin of an equivalence claim "|d| < m", where every
HELD is false. Normal differences, and skewed ones (exponential, centred) that the sign-flip test's symmetry
assumption does not hold for. It measures, it does not assert.

    python benchmarks/bench_verdict.py [--reps 1000] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tailmem.stats.bootstrap import mean_interval
from tailmem.stats.compare import compare
from tailmem.stats.settings import StatsSettings
from tailmem.stats.verdict import HELD, verdict

SIZES = (2, 3, 5, 10, 30)
DRAWS = {
    "normal": lambda rng, n: rng.normal(0.0, 1.0, n),
    "skewed": lambda rng, n: rng.exponential(1.0, n) - 1.0,  # mean 0, sd 1, skewness 2
}


def cell(draw, n: int, effect: float, direction: str, threshold: float, s: StatsSettings, reps: int, seed: int) -> dict:
    """Coverage of `effect` and HELD rate over `reps` data sets, by the rule and by the old bootstrap-only rule."""
    rng = np.random.default_rng(seed)
    new_cover = new_held = old_cover = old_held = 0
    method = ""
    for r in range(reps):
        d = effect + draw(rng, n)
        c = compare(d, direction=direction, threshold=threshold, settings=s)
        new_cover += c.interval.low <= effect <= c.interval.high
        new_held += c.verdict == HELD
        method = c.interval.method
        old = mean_interval(d, None, None, s.confidence, s.resamples, r)
        old_cover += old.low <= effect <= old.high
        old_held += verdict(old.low, old.high, direction, threshold) == HELD
    return {
        "method": method,
        "cover": new_cover / reps,
        "held": new_held / reps,
        "old_cover": old_cover / reps,
        "old_held": old_held / reps,
    }


def table(title: str, rows: list[tuple], nominal_held: str) -> None:
    print(f"\n{title}")
    print(f"| n | planted | interval | coverage (0.95) | old coverage | HELD ({nominal_held}) | old HELD |")
    print("|---|---|---|---|---|---|---|")
    for n, planted, c in rows:
        print(
            f"| {n} | {planted} | {c['method']} | {c['cover']:.3f} | {c['old_cover']:.3f} | {c['held']:.3f} | "
            f"{c['old_held']:.3f} |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000, help="data sets per cell")
    ap.add_argument("--resamples", type=int, default=2000, help="stats.resamples")
    a = ap.parse_args()
    s = StatsSettings(resamples=a.resamples)
    se = np.sqrt(0.95 * 0.05 / a.reps)
    print(
        f"{a.reps} data sets per cell, stats.resamples {a.resamples}, min_units {s.min_units}; Monte Carlo sd of a "
        f"coverage near 0.95: {se:.3f}, of a rate near 0.025: {np.sqrt(0.025 * 0.975 / a.reps):.3f}"
    )
    t0 = time.perf_counter()
    for name, draw in DRAWS.items():
        for effect, label in ((0.0, "no effect: HELD is false"), (0.8, "effect 0.8 sd: HELD is power")):
            rows = [
                (n, f"{effect:g}", cell(draw, n, effect, "greater", 0.0, s, a.reps, 1000 * n + int(10 * effect)))
                for n in SIZES
            ]
            table(f"{name} differences, claim '> 0', {label}", rows, "<= 0.025" if effect == 0 else "power")
    margin = 0.5
    rows = [
        (n, f"{margin:g} (on the margin)", cell(DRAWS["normal"], n, margin, "within", margin, s, a.reps, 7 + n))
        for n in SIZES
    ]
    table(f"normal differences, claim '|d| < {margin:g}', truth on the margin: HELD is false", rows, "<= 0.025")
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
