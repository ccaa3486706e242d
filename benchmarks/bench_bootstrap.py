"""Vectorised bootstrap p vs the slow reference (powerlaw.Fit per replicate) on the same replicates.

Run: python benchmarks/bench_bootstrap.py [--B 1000] [--reference-B 1000] [--states 1000] [--seed 0]
Prints timings, their ratio and both p values; it measures, it does not assert.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tailmem.audit.bootstrap import bootstrap_gof, bootstrap_gof_reference
from tailmem.audit.tailfit import fit_tail


def heavy_tailed_counts(states: int, accesses: int, seed: int) -> np.ndarray:
    """Access counts of `states` items whose popularity is Pareto(1.2): Poisson counts, zeros included."""
    rng = np.random.default_rng(seed)
    weight = rng.pareto(1.2, states) + 1
    return rng.poisson(weight / weight.sum() * accesses)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--B", type=int, default=1000, help="replicates of the vectorised bootstrap")
    ap.add_argument(
        "--reference-B",
        type=int,
        default=1000,
        help="replicates refitted by powerlaw.Fit (~25 ms each at 1000 states); if < B, its time is extrapolated",
    )
    ap.add_argument("--states", type=int, default=1000)
    ap.add_argument("--accesses", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--alpha-max", type=float, default=10.0)
    a = ap.parse_args()

    counts = heavy_tailed_counts(a.states, a.accesses, a.seed)
    fit = fit_tail(counts, pl_alpha_max=a.alpha_max)
    print(
        f"counts: {counts.size} states, {counts.sum()} accesses, {np.count_nonzero(counts)} nonzero, "
        f"{np.unique(counts[counts > 0]).size} distinct; fit xmin={fit.xmin:g} alpha={fit.alpha:.4f} "
        f"n_tail={fit.n_tail} D={fit.ks_D:.5f}"
    )
    args = (counts, fit.xmin, fit.alpha, fit.ks_D)

    t0 = time.perf_counter()
    fast = bootstrap_gof(*args, a.B, a.seed, a.alpha_max)
    t_fast = time.perf_counter() - t0
    print(f"vectorised: B={a.B}  {t_fast:.2f} s  p={fast.p:.4f}")

    rb = min(a.reference_B, a.B)
    t0 = time.perf_counter()
    slow = bootstrap_gof_reference(*args, rb, a.seed, a.alpha_max)
    t_slow = time.perf_counter() - t0
    per = t_slow / rb
    same = fast if rb == a.B else bootstrap_gof(*args, rb, a.seed, a.alpha_max)  # same seed: same replicates
    print(f"reference:  B={rb}  {t_slow:.2f} s  ({per * 1e3:.1f} ms/replicate)  p={slow.p:.4f}")
    if rb < a.B:
        print(f"reference time for B={a.B} extrapolated: {per * a.B:.1f} s")
    print(f"speed-up at B={a.B}: {per * a.B / t_fast:.1f}x")
    agree = np.isclose(same.replicate_D, slow.replicate_D, atol=1e-6, equal_nan=True)
    print(
        f"p on the same {rb} replicates: vectorised {same.p:.4f}  reference {slow.p:.4f}  "
        f"|diff| {abs(same.p - slow.p):.4f};  replicate D equal (1e-6) on {agree.sum()}/{rb}, "
        f"xmin equal on {np.sum(same.replicate_xmin == slow.replicate_xmin)}/{rb}"
    )


if __name__ == "__main__":
    main()
