"""The concentration rows' test, simulated on the data's own kind before it decides a row (prints, never asserts).

The rows of `claims_random_walk` that set the LLM policy's access concentration beside the random walk's on the
same world and steps (`studies/random_walk/tables.py:concentration_claims`) read one difference per world with the
sign-flip rule of `stats.compare`. That rule assumes differences symmetric about their mean under the null. Here the
semantic proxy (the model-free twin) plays the policy on `--worlds` worlds per family (`--families`, `--n` states,
`--episodes` x 50 steps), each beside the random walk's first as many steps on the same world; its per-world
differences of each measure (Gini, top-10% share, sigma_top10) are then resampled, `--units` at a time, `--reps`
times:

- centred on 0 (the claim's boundary, where every HELD is false: the level, target <= 0.025), and
- as measured (the twin's effect: the power the design check plans with `power.stated_effects.policy_<measure>`).

Printed per measure: the twin's mean, sd and skew, and both rates with their simulation sd. The defaults are
default_model's design (8 worlds of 150 states, 2 families, 50 steps). Measured there (15 worlds a family, 8 units,
4,000 reps): Gini +0.058 (sd 0.049), false HELD 2.6% (0.3), power 73%; top-10% share +0.210 (0.163), 3.0% (0.3);
sigma_top10 +2.49 (2.99), 1.5% (0.2), power 48%. At 500 states and 100 steps (3 families x 10 worlds, 6 units, 2,000
reps): Gini +0.034 (0.018), 2.8% (0.4); top-10% share +0.117 (0.058, skew -0.7), 3.5% (0.4); sigma_top10 +3.48
(3.11), 2.5% (0.4). The claims table reads the measures whose level holds (`claim_specs.CONCENTRATION`): not the
top-10% share.

    python benchmarks/bench_concentration_verdict.py [--families scale_free modular] [--worlds 15] [--n 150]
        [--episodes 1] [--units 8] [--reps 1000]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from scipy.stats import skew

from tailmem.graphworld.build import world_from_config
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import Semantic
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup
from tailmem.stats.compare import compare
from tailmem.stats.group import shipped
from tailmem.studies.random_walk import tables as rw
from tailmem.workflow import graph_option

WALK = RolloutGroup(episodes=160, steps=50, start="uniform")  # the default scale's random walk


def twin_frame(families: list[str], worlds: int, n: int, episodes: int) -> pd.DataFrame:
    """`rw.concentration_frame` of the semantic proxy beside the random walk on `worlds` seeds of each family."""
    retrieval = RetrievalGroup(name="recency", k=5)
    length = RolloutGroup(episodes=episodes, steps=50, start="uniform")
    policy, walk = {}, {}
    for family in families:
        for seed in range(worlds):
            world = world_from_config({**graph_option(family), "n": n}, seed=seed)
            trace = rollout(world, length, retrieval, seed, policy=Semantic(world, seed))
            key = (family, n, seed, trace.total_steps)
            policy[key] = trace.counts
            walk[key] = rollout(world, WALK, retrieval, seed).counts_over(trace.total_steps)
    return rw.concentration_frame(policy, walk, 0.1)


def held_rate(values: np.ndarray, units: int, reps: int, rng) -> float:
    """How often `units` draws of `values` are HELD under the claim "> 0"."""
    settings, names = shipped(resamples=1000, seed=0), pd.Series([f"world{i}" for i in range(units)])
    held = 0
    for _ in range(reps):
        draw = pd.Series(rng.choice(values, units, replace=True))
        held += compare(draw, names, direction="greater", threshold=0.0, settings=settings).row()["verdict"] == "HELD"
    return held / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", nargs="+", default=["scale_free", "modular"])
    ap.add_argument("--worlds", type=int, default=15, help="seeds per family")
    ap.add_argument("--n", type=int, default=150, help="states per world")
    ap.add_argument("--episodes", type=int, default=1, help="the policy's episodes of 50 steps")
    ap.add_argument("--units", type=int, default=8, help="worlds a row rests on")
    ap.add_argument("--reps", type=int, default=1000)
    args = ap.parse_args()
    frame = twin_frame(args.families, args.worlds, args.n, args.episodes)
    rng = np.random.default_rng(0)
    print(
        f"semantic twin vs random walk, {len(frame)} worlds of {args.n} states ({', '.join(args.families)}), "
        f"{args.episodes * 50} steps; {args.units} units, {args.reps} data sets per cell"
    )
    for metric in ("gini", "top10_share", "sigma_top10"):
        diff = (frame[f"{metric}_a"] - frame[f"{metric}_b"]).to_numpy()
        level = held_rate(diff - diff.mean(), args.units, args.reps, rng)
        power = held_rate(diff, args.units, args.reps, rng)
        sd = lambda r: (r * (1 - r) / args.reps) ** 0.5  # noqa: E731 - the simulation sd of a rate
        print(
            f"{metric:12s} mean {diff.mean():+.3f} sd {diff.std(ddof=1):.3f} skew {skew(diff):+.2f} | "
            f"false HELD at 0: {level:.3f} ({sd(level):.3f}) | HELD at the twin's effect: {power:.3f} ({sd(power):.3f})"
        )


if __name__ == "__main__":
    main()
