"""One tail audit's fits (power law, truncated power law, log-normal) with our discrete-TPL normaliser vs
powerlaw's own (mpmath's Lerch transcendent), on the same access-count vectors in the same run.

Run: python benchmarks/bench_tailfit.py [--vectors 6] [--states 1000] [--seed 0]
Prints timings, their ratio and the largest difference of the fitted TPL parameters; it measures, it does not assert.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from tailmem.audit import tpl_normalizer
from tailmem.audit.tailfit import fit_tail


def heavy_tailed_counts(states: int, accesses: int, seed: int) -> np.ndarray:
    """Access counts of `states` items whose popularity is Pareto(1.2): Poisson counts, zeros included."""
    rng = np.random.default_rng(seed)
    weight = rng.pareto(1.2, states) + 1
    return rng.poisson(weight / weight.sum() * accesses)


def timed_fits(vectors) -> tuple[float, list]:
    t = time.perf_counter()
    fits = [fit_tail(v) for v in vectors]
    return time.perf_counter() - t, fits


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", type=int, default=6)
    ap.add_argument("--states", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    vectors = [heavy_tailed_counts(a.states, 20 * a.states, a.seed + i) for i in range(a.vectors)]
    tpl_normalizer.uninstall()
    t_ref, ref = timed_fits(vectors)
    tpl_normalizer.install()
    t_fast, fast = timed_fits(vectors)
    diffs = [
        max(abs(f.tpl_alpha - r.tpl_alpha), abs(f.tpl_lambda - r.tpl_lambda), abs(f.R_tpl_ln - r.R_tpl_ln))
        for f, r in zip(fast, ref)
        if not math.isnan(r.tpl_alpha)
    ]
    print(
        f"{a.vectors} vectors of {a.states} states: powerlaw's Lerch normaliser {t_ref / a.vectors:.2f} s per audit "
        f"fit, ours {t_fast / a.vectors:.2f} s: x{t_ref / t_fast:.1f}"
    )
    print(
        f"TPL fitted on {len(diffs)}/{a.vectors} (reference); largest |difference| of alpha, lambda, R: "
        f"{max(diffs) if diffs else float('nan'):.2e}; same xmin on {sum(f.xmin == r.xmin for f, r in zip(fast, ref))}"
    )


if __name__ == "__main__":
    main()
