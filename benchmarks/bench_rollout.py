"""Rollout speed: the project's numba kernel vs the plain per-step networkx reference, same graph and uniforms.

Run: `python benchmarks/bench_rollout.py [--n 1000] [--episodes 200] [--steps 100] [--k 5] [--seed 0]`.
It measures and prints; it asserts no time. Both sides consume the same pre-drawn uniforms (drawing them is not
timed); the kernel is compiled (or loaded from numba's cache) in a warm-up call that is not timed; the kernel
time is the best of several repeats of `kernel_rollout` (allocation and Trace included), the reference is timed
once. Access counts must be identical, which is checked and printed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tailmem.graphworld.build import world_from_config
from tailmem.rollout.randomness import draw_uniforms
from tailmem.rollout.reference import reference_rollout
from tailmem.rollout.run import kernel_rollout
from tailmem.settings.rollout import DESIGNS, SAMPLING_DESIGNS


def best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    world = world_from_config(dict(family="scale_free", n=args.n, m=2), args.seed)
    graph = world.to_networkx()
    total = args.episodes * args.steps
    start = time.perf_counter()
    kernel_rollout(world.indptr, world.targets, "none", 1, draw_uniforms(0, 1, 2, 1), progress=False)
    warmup = time.perf_counter() - start
    print(
        f"graph: scale_free n={world.n} edges={world.n_edges} seed={args.seed}; "
        f"{args.episodes} episodes x {args.steps} steps = {total} steps; k={args.k}"
    )
    print(f"numba compile/cache-load warm-up: {warmup:.2f} s (excluded from the timings below)")
    print(f"{'retrieval':<22} {'kernel steps/s':>15} {'reference steps/s':>18} {'ratio':>8} {'accesses':>9}  counts")
    for design in DESIGNS:
        draws = args.k if design in SAMPLING_DESIGNS else 0
        uniforms = draw_uniforms(args.seed, args.episodes, args.steps, draws)
        fast = kernel_rollout(world.indptr, world.targets, design, args.k, uniforms, progress=False)
        t_fast = best_time(
            lambda: kernel_rollout(world.indptr, world.targets, design, args.k, uniforms, progress=False), args.repeats
        )
        start = time.perf_counter()
        ref = reference_rollout(graph, design, args.k, uniforms)
        t_ref = time.perf_counter() - start
        same = np.array_equal(fast.counts, ref.counts) and np.array_equal(fast.access_item, ref.access_item)
        print(
            f"{design:<22} {total / t_fast:>15,.0f} {total / t_ref:>18,.0f} {t_ref / t_fast:>7.1f}x "
            f"{fast.total_accesses:>9}  {'identical' if same else 'DIFFERENT'}"
        )


if __name__ == "__main__":
    main()
