"""Realised coverage and false-HELD rate of the claims rule against planted effects, beside the old rule.

For each n (units) and planted mean difference, many data sets are drawn; each is read as a claim "> 0" by
`tailmem.stats.compare` (the rule: exact interval and sign-flip test up to 15 units, bootstrap above, at least
`stats.min_units` units, interval and test agreeing) and by the old rule (percentile bootstrap interval alone).
Printed per cell: how often the 95% interval holds the planted mean (nominal 0.95), and how often the claim is
HELD: with no effect that is a false HELD (nominal at most 0.025, the one-sided level of the interval), with an
effect it is the power. A last block plants the truth on the margin of an equivalence claim "|d| < m", where every
HELD is false. Normal differences, and skewed ones (exponential, centred) that the sign-flip test's symmetry
assumption does not hold for.

Paired yes/no outcomes (`compare(..., outcome="binary")`) are measured exactly rather than by drawing data sets: n
units give (n + 1)(n + 2) / 2 possible counts (won by a alone, by b alone), each is decided once, and the chance
of a verdict under a truth (p10, p01) is the multinomial sum over the counts that reach it. Every claim form is
read with its truth on the boundary (where every HELD is false) over a grid of the nuisance: "yes/no" arms
answer independently at accuracies from 0.05 to 0.95; "three-valued" differences range over every share of
discordant units the truth allows; the table prints the worst of each, beside the old sign-flip reading of the
same counts. The rows marked "reported" plant the two cases that were found HELD: a difference of +-0.25, every
discordant unit one way. It measures, it does not assert.

    python benchmarks/bench_verdict.py [--reps 1000] [--resamples 2000] [--binary-only]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import gammaln, xlogy

from tailmem.settings.stats import StatsGroup
from tailmem.stats.bootstrap import mean_interval
from tailmem.stats.compare import compare
from tailmem.stats.settings import shipped
from tailmem.stats.verdict import HELD, verdict

SIZES = (2, 3, 5, 10, 30)
DRAWS = {
    "normal": lambda rng, n: rng.normal(0.0, 1.0, n),
    "skewed": lambda rng, n: rng.exponential(1.0, n) - 1.0,  # mean 0, sd 1, skewness 2
}


def cell(draw, n: int, effect: float, direction: str, threshold: float, s: StatsGroup, reps: int, seed: int) -> dict:
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


BINARY_SIZES = (6, 8, 12, 30)
MARGIN = 0.05
FORMS = (  # (label, direction, threshold, truth on the boundary or where a HELD is false)
    ("greater: > 0", "greater", 0.0, 0.0),
    ("less: < 0", "less", 0.0, 0.0),
    (f"within: |d| < {MARGIN:g}", "within", MARGIN, MARGIN),
    (f"within: |d| < {MARGIN:g}", "within", MARGIN, -MARGIN),
    (f"non-inferior: > -{MARGIN:g}", "greater", -MARGIN, -MARGIN),
    (f"no better by m: < {MARGIN:g}", "less", MARGIN, MARGIN),
    (f"within, reported: |d| < {MARGIN:g}", "within", MARGIN, 0.25),
    (f"non-inferior, reported: > -{MARGIN:g}", "greater", -MARGIN, -0.25),
)


def outcomes(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (n10, n01) count pair of n units and its log multinomial coefficient."""
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = i + j <= n
    i, j = i[keep], j[keep]
    return i, j, gammaln(n + 1) - gammaln(i + 1) - gammaln(j + 1) - gammaln(n - i - j + 1)


def chance(mask: np.ndarray, n: int, p10: np.ndarray, p01: np.ndarray) -> np.ndarray:
    """P(counts in `mask`) under each truth (p10[k], p01[k])."""
    i, j, coef = outcomes(n)
    p10, p01 = np.asarray(p10, dtype=float)[:, None], np.asarray(p01, dtype=float)[:, None]
    log_p = coef + xlogy(i, p10) + xlogy(j, p01) + xlogy(n - i - j, np.clip(1.0 - p10 - p01, 0.0, 1.0))
    return np.exp(log_p[:, mask]).sum(axis=1)


def truths(delta: float, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """The (p10, p01) with p10 - p01 = delta: independent arms at accuracies 0.05-0.95 ("yes/no"), or every
    share of discordant units ("three-valued")."""
    if kind == "yes/no":
        pb = np.linspace(0.05, 0.95, 91)
        pb = pb[(pb + delta >= 0) & (pb + delta <= 1)]
        pa = pb + delta
        return pa * (1 - pb), pb * (1 - pa)
    p01 = np.linspace(max(0.0, -delta), (1 - delta) / 2, 400)
    return p01 + delta, p01


def binary_cell(n: int, direction: str, threshold: float, truth: float, s: StatsGroup) -> dict:
    """Worst false-HELD chance and least coverage of `truth` over the nuisance, new rule and old, by kind."""
    i, j, _ = outcomes(n)
    held = {"new": np.zeros(i.size, bool), "old": np.zeros(i.size, bool)}
    cover = {"new": np.zeros(i.size, bool), "old": np.zeros(i.size, bool)}
    for k, (a, b) in enumerate(zip(i, j)):
        d = np.r_[np.ones(a), -np.ones(b), np.zeros(n - a - b)]
        for rule, outcome in (("new", "binary"), ("old", "continuous")):
            c = compare(d, direction=direction, threshold=threshold, settings=s, outcome=outcome)
            held[rule][k] = c.verdict == HELD
            cover[rule][k] = c.interval.low <= truth <= c.interval.high
    out = {}
    for kind in ("yes/no", "three-valued"):
        p10, p01 = truths(truth, kind)
        for rule in ("new", "old"):
            out[kind, rule, "held"] = float(chance(held[rule], n, p10, p01).max())
            out[kind, rule, "cover"] = float(chance(cover[rule], n, p10, p01).min())
    return out


def binary_tables(s: StatsGroup) -> None:
    print(
        "\npaired yes/no outcomes, truth on the claim's boundary (HELD is false: nominal <= 0.025), worst over the "
        "nuisance; coverage of the truth by the 95% interval, least over the nuisance (nominal >= 0.95); exact sums"
    )
    print(
        "| claim | truth | n | false HELD, yes/no | old | false HELD, three-valued | old | coverage, yes/no | old | "
        "coverage, three-valued | old |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, direction, threshold, truth in FORMS:
        for n in BINARY_SIZES:
            c = binary_cell(n, direction, threshold, truth, s)
            cells = " | ".join(
                f"{c[kind, rule, what]:.3f}"
                for what in ("held", "cover")
                for kind in ("yes/no", "three-valued")
                for rule in ("new", "old")
            )
            print(f"| {label} | {truth:+g} | {n} | {cells} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000, help="data sets per cell")
    ap.add_argument("--resamples", type=int, default=2000, help="stats.resamples")
    ap.add_argument("--binary-only", action="store_true", help="only the paired yes/no tables")
    a = ap.parse_args()
    s = shipped(resamples=a.resamples)
    t0 = time.perf_counter()
    binary_tables(s)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if a.binary_only:
        return
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
