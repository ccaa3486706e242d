"""False-HELD rate and power of the claims rule on every kind of outcome the claims tables read; beside it, the
realised coverage of the sign-flip rule and the exact level of paired yes/no outcomes.

1. Outcome kinds (`tailmem.stats.simulate.KINDS`; the default section). For each kind (yes/no per question, yes/no
   over three seeds, coverage shares, token F1, yes/no in conversations or chain seeds, continuous values in seeds,
   per-seed values normal and skewed, controller runs of 100 steps), `--reps` data sets are drawn with the truth on
   the claim's boundary, where every HELD is false (target <= 0.025 plus simulation error), and with the truth at
   the kind's stated effect (the power), and each is read by `stats.compare` with the outcome and groups the claims
   tables pass. Printed: the rate and its simulation sd, sqrt(r (1 - r) / reps). `--before` passes the `outcome=`
   the callers passed before bounded shares had their own kind (coverage "binary", F1 "continuous"); it is for
   running this file against that commit's `src` (with `tailmem/stats/simulate.py` copied in), which is how the
   "before" column of docs/stats.md was made. Beside it, for the kinds whose units are drawn to yes/no, how often
   a data set's verdict changes with `stats.seed` alone (0-9).
2. `--all`: paired yes/no outcomes measured exactly rather than by drawing data sets: n units give (n + 1)(n + 2) / 2
   possible counts (won by a alone, by b alone), each is decided once, and the chance of a verdict under a truth
   (p10, p01) is the multinomial sum over the counts that reach it. Every claim form is read with its truth on the
   boundary over a grid of the nuisance ("yes/no": independent arms at accuracies 0.05-0.95; "three-valued": every
   share of discordant units); the worst of each is printed beside the old sign-flip reading of the same counts.
3. `--all`: the sign-flip rule's coverage and false HELD against planted effects, beside the old percentile
   bootstrap (normal and skewed differences, claim "> 0", and an equivalence claim with its truth on the margin).

It measures, it does not assert (tests/stats/test_verdict_level.py asserts a modest version).

    python benchmarks/bench_verdict.py [--reps 1000] [--resamples 2000] [--before] [--all]

On a 2-core machine shared with other jobs, one process: the default section takes about 1 minute of wall time at
1,000 data sets per cell (paired proportions' p is cached per count pair); `--all` about 2 minutes (the exact
yes/no tables 20 s, the sign-flip cells 20 s more). `--before`, on the old code without that cache, 7 minutes.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
from scipy.special import gammaln, xlogy

from tailmem.settings.stats import StatsGroup
from tailmem.stats.bootstrap import mean_interval
from tailmem.stats.compare import compare
from tailmem.stats.group import shipped
from tailmem.stats.simulate import KINDS, Kind
from tailmem.stats.verdict import HELD, claim_text, verdict

BEFORE = {"coverage share": "binary", "F1, tie": "continuous", "F1, > 0": "continuous"}  # outcome= before

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


def held_rate(k: Kind, n: int, truth: float, s: StatsGroup, reps: int, outcome: str, seed: int) -> float:
    """Share of `reps` data sets of kind `k` (n independent units, mean difference `truth`) the rule HOLDS."""
    rng = np.random.default_rng(seed)
    held = 0
    for _ in range(reps):
        d, groups, clustered = k.draw(rng, truth, n)
        c = compare(
            d, groups, direction=k.direction, threshold=k.threshold, settings=s, clustered=clustered, outcome=outcome
        )
        held += c.verdict == HELD
    return held / reps


def kinds_table(s: StatsGroup, reps: int, before: bool) -> None:
    print(
        f"\noutcome kinds: false HELD with the truth on the claim's boundary (target <= 0.025 + sd) and power at "
        f"the stated truth; {reps} data sets per cell; +- is the simulation sd"
    )
    print("| kind | claims rows | outcome= | claim (truth) | units | false HELD | power | at truth |")
    print("|---|---|---|---|---|---|---|---|")
    for i, k in enumerate(KINDS):
        outcome = BEFORE.get(k.name, k.outcome) if before else k.outcome
        for n in k.units:
            false, power = (
                held_rate(k, n, truth, s, reps, outcome, 1000 * i + 10 * n + j)
                for j, truth in enumerate((k.boundary, k.effect))
            )
            sd = [np.sqrt(r * (1 - r) / reps) for r in (false, power)]
            units = f"{n}" + (f" x {k.group_size}" if k.group_size > 1 else "")
            print(
                f"| {k.name} | {k.rows} | {outcome} | {claim_text(k.direction, k.threshold)} ({k.boundary:+g}) | "
                f"{units} | {false:.3f} +- {sd[0]:.3f} | {power:.3f} +- {sd[1]:.3f} | {k.effect:+g} |",
                flush=True,
            )


def seed_table(s: StatsGroup, reps: int, seeds: int = 10) -> None:
    """How often a row drawn to yes/no changes verdict with `stats.seed` alone (the draw is a randomised test)."""
    print(
        f"\nbounded rows: share of {reps} data sets (at the stated truth, largest size) whose verdict differs "
        f"between stats.seed 0-{seeds - 1}; the share HELD under every seed and under at least one"
    )
    print("| kind | units | verdict changes with the seed | HELD under every seed | under some seed |")
    print("|---|---|---|---|---|")
    for i, k in enumerate(KINDS):
        n = max(k.units)
        if not (k.outcome == "bounded" or (k.outcome == "binary" and k.group_size > 1)):
            continue  # nothing is drawn
        rng = np.random.default_rng(77 + i)
        changes = every = some = 0
        for _ in range(reps):
            d, groups, clustered = k.draw(rng, k.effect, n)
            held = [
                compare(
                    d,
                    groups,
                    direction=k.direction,
                    threshold=k.threshold,
                    settings=replace(s, seed=seed),
                    clustered=clustered,
                    outcome=k.outcome,
                ).verdict
                for seed in range(seeds)
            ]
            changes += len(set(held)) > 1
            every += all(v == HELD for v in held)
            some += any(v == HELD for v in held)
        units = f"{n}" + (f" x {k.group_size}" if k.group_size > 1 else "")
        print(f"| {k.name} | {units} | {changes / reps:.3f} | {every / reps:.3f} | {some / reps:.3f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000, help="data sets per cell")
    ap.add_argument("--resamples", type=int, default=2000, help="stats.resamples")
    ap.add_argument("--before", action="store_true", help="the outcome= callers passed before bounded shares")
    ap.add_argument("--all", action="store_true", help="also the exact yes/no and the sign-flip tables")
    a = ap.parse_args()
    s = shipped(resamples=a.resamples)
    t0 = time.perf_counter()
    kinds_table(s, a.reps, a.before)
    if not a.before:
        seed_table(s, max(20, a.reps // 5))
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if not a.all:
        return
    t0 = time.perf_counter()
    binary_tables(s)
    print(f"\n{time.perf_counter() - t0:.0f} s")
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
