"""The concentration rows' test, simulated on the data's own kind before it decides a row (prints, never asserts).

The rows of `claims_random_walk` that set the LLM policy's access concentration beside the random walk's on the
same world and steps (`studies/random_walk/tables.py:concentration_claims`) read one difference per world with the
sign-flip rule of `stats.compare`, which assumes differences symmetric about the boundary under the null. Here the
semantic proxy (the model-free twin, `studies/random_walk/twin.py`) plays the policy on `--worlds` worlds per family
(`--families`, `--n` states, `--episodes` x `--steps` steps), each beside the random walk's first as many steps on the same world;
its per-world differences of each measure are then drawn `--units` at a time, `--reps` times:

- centred on 0 (the claim's boundary, where every HELD is false): the rule's false HELD read at stats.alpha, and
  the largest p the exact test reaches whose false HELD stays within alpha (the critical p), and
- as measured: the power at the critical p, at the twin's effect.

Printed per measure: the twin's mean, sd and skew (the stated effect), the rates with their simulation sd, and the
`level` entry of `power.stated_effects.policy_<measure>` the row is read at.

Measured at default_model's design (2 families x 300 worlds of 150 states, 50 steps, 8 units, 100,000 draws;
configs/scale/default_model.yaml): Gini +0.049 (sd 0.044, skew -0.24), false HELD 3.02% at 0.025, critical p 4/256
(2.10%), power 64%; top-10% share +0.176 (0.147, -0.29), 3.18%, 4/256 (2.18%), 68%; sigma_top10 +1.85 (2.40, +0.65),
1.03%, 6/256, 47%. At paper_model's (200 worlds of 500 states, 160 x 50 steps, 10 units, 40,000 draws): Gini 2.49%
at 0.025, 25/1024; the share 2.67%, 23/1024; sigma_top10 (skew -0.93) 6.11%, 5/1024, power 13%. A twin of 30 worlds
(the earlier default) put Gini at 2.6% and the share at 3.0%: within its own noise of each other.

    python benchmarks/bench_concentration_verdict.py [--families scale_free modular] [--worlds 300] [--n 150]
        [--episodes 1] [--steps 50] [--units 8] [--reps 100000]

paper_model's design: --worlds 100 --n 500 --episodes 160 --units 10 --reps 40000.
"""

from __future__ import annotations

import argparse
import time

from scipy.stats import skew

from tailmem.stats.group import shipped
from tailmem.studies.random_walk import twin
from tailmem.workflow import graph_option


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", nargs="+", default=["scale_free", "modular"])
    ap.add_argument("--worlds", type=int, default=300, help="seeds per family")
    ap.add_argument("--n", type=int, default=150, help="states per world")
    ap.add_argument("--episodes", type=int, default=1, help="the policy's episodes (rollout.model_episodes)")
    ap.add_argument("--steps", type=int, default=50, help="steps an episode (rollout.steps)")
    ap.add_argument("--units", type=int, default=8, help="worlds a row rests on")
    ap.add_argument("--reps", type=int, default=100_000)
    args = ap.parse_args()
    start = time.perf_counter()
    frame = twin.frame({f: graph_option(f) for f in args.families}, args.worlds, args.n, args.episodes, args.steps)
    stats = shipped()
    print(
        f"semantic twin vs random walk, {len(frame)} worlds of {args.n} states ({', '.join(args.families)}), "
        f"{args.episodes} x {args.steps} steps, in {time.perf_counter() - start:.0f} s; {args.units} units, {args.reps:,} draws a rate"
    )
    for measure in twin.MEASURES:
        diff = twin.differences(frame, measure)
        lv = twin.level(diff, args.units, stats.alpha, args.reps, resamples=stats.resamples, flips_seed=stats.seed)
        print(
            f"{measure:12s} mean {diff.mean():+.3f} sd {diff.std(ddof=1):.3f} skew {skew(diff):+.2f} | "
            f"false HELD at {stats.alpha:g}: {lv.at_alpha:.4f} ({lv.sd(lv.at_alpha):.4f}); at the critical p "
            f"{lv.critical_p:.6g}: {lv.false_held:.4f} "
            f"({lv.sd(lv.false_held):.4f}), power {lv.power:.3f} ({lv.sd(lv.power):.3f})"
        )
        print(
            f"    level: {{units: {lv.units}, critical_p: {lv.critical_p!r}, at_alpha: {lv.at_alpha:.4f}, "
            f"false_held: {lv.false_held:.4f}}}   # effect {diff.mean():.3f}, sd {diff.std(ddof=1):.3f}"
        )


if __name__ == "__main__":
    main()
