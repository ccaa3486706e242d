"""How often a planned controller claim is decided: the design check's plan and the claims row's comparison,
simulated on runs of the pipeline's own shape (prints, never asserts; tests/control/test_plan_power.py asserts).

Why: a plan that draws a few steps per run is valid (unbiased, false HELD at the level) but can be nearly
powerless: each run's estimate carries the draw's own spread on top of the spread between runs. This script runs
`design.plan` and `studies.controller.tables.compare_arms` (the claims row) on simulated runs shaped as the default
slice's (8 runs x 400 steps, 100 of them tail, half of those with identical prompts; per-step differences of the
twin's own kind: -1, 0 or +1 where the blocks differ) and prints how often the row is HELD at a true difference of
-0.045 (the programmatic twin's Table 5 verbose effect is -0.040) under:

- the old plan: 4 tail draws per pair and run, split by the assumed spreads alone;
- every tail step called;
- the new plan: the calls per run `ClaimTwin.calls_for` says reach 80% power at the twin's effect, with the
  planned power it states (`ClaimTwin.power`), beside the simulated rate.

    python benchmarks/bench_plan_power.py --reps 400
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from tailmem.control import design
from tailmem.records.control import DesignPlan

RUNS, STEPS, TAIL = 8, 400, 100
DECISIVE, FORMAT = 30, 20  # of the tail's 100 steps: 50 with identical prompts (the rest outside the tail alike)


LOSE, WIN, FLIP = 0.175, 0.175, 0.1  # per decisive step: P(a right, b wrong), P(a wrong, b right) at no effect;
# per format step: each way


def shape(rng: np.random.Generator, effect: float) -> pd.DataFrame:
    """One run's per-step twin of the pair's arms: which steps differ (decisive, format, identical) and the arms'
    answers, whose tail difference in error (a - b) has mean `effect`: -1, 0 or +1 where the blocks differ."""
    kinds = np.array(["decisive"] * DECISIVE + ["format"] * FORMAT + ["identical"] * (TAIL - DECISIVE - FORMAT))
    kinds = np.concatenate([rng.permutation(kinds), rng.permutation(np.resize(kinds, STEPS - TAIL))])
    shift = effect * TAIL / DECISIVE  # the mean of (error a - error b) on a decisive step
    lose, win = LOSE - shift / 2, WIN + shift / 2  # a - b = -1 (a right, b wrong) and +1
    u = rng.random(STEPS)
    d = np.where(kinds == "decisive", np.where(u < lose, -1, np.where(u < lose + win, 1, 0)), 0)
    d = np.where(kinds == "format", np.where(u < FLIP, -1, np.where(u < 2 * FLIP, 1, 0)), d)
    base = rng.random(STEPS) < 0.5
    right_a = np.where(d == -1, True, np.where(d == 1, False, base))
    right_b = np.where(d == -1, False, np.where(d == 1, True, base))
    return pd.DataFrame({"kind": kinds, "right_a": right_a, "right_b": right_b})


def exact_twin(pair: design.ClaimPair, effect: float, runs: int = RUNS) -> design.ClaimTwin:
    """The `ClaimTwin` of the process `shape` draws from, from its own parameters (a twin estimated from
    simulated runs carries their noise: at 400 runs its effect is off by about 0.002, and the power with it)."""
    shift = effect * TAIL / DECISIVE
    var_decisive = LOSE + WIN - shift**2  # E d^2 - (E d)^2
    var_format = 2 * FLIP
    between = np.sqrt((DECISIVE * var_decisive + FORMAT * var_format) / TAIL**2)  # the run's mean, every step
    sds = [design.floored(k, s) for k, s in zip(design.STRATA, (var_decisive**0.5, var_format**0.5, 0.0, 0.0))]
    return design.ClaimTwin(
        pair=pair,
        effect=effect,
        sd_between=float(between),
        sizes=np.tile([DECISIVE, FORMAT, 0, 0], (runs, 1)).astype(float),
        sds=np.tile(sds, (runs, 1)),
        steps=np.full(runs, float(TAIL)),
        evidence=DECISIVE * runs,
        runs=tuple(("f", r) for r in range(runs)),
    )


def arm_steps(run: pd.DataFrame, pair: design.ClaimPair) -> dict[str, pd.DataFrame]:
    """The twin's per-step frames of every claim arm: the pair's arm a differs from b where `run` says so."""
    n = len(run)
    sha_b = np.arange(n).astype(str)
    base = pd.DataFrame({"step": range(n), "state": range(n), "prompt_sha": sha_b, "mentions_next": True})
    steps = {arm: base.assign(covered=False, correct=run.right_b.to_numpy()) for arm in design.claim_arms()}
    differs = run.kind.to_numpy() != "identical"
    steps[pair.a] = base.assign(
        prompt_sha=np.where(differs, "a" + sha_b, sha_b),
        covered=run.kind.to_numpy() == "decisive",  # decisive: the blocks differ in evidence
        correct=run.right_a.to_numpy(),
    )
    return steps


def in_tail() -> np.ndarray:
    return np.arange(STEPS) < TAIL


def twin(pair: design.ClaimPair, effect: float, runs: int, seed: int) -> design.ClaimTwin:
    """The pair's `ClaimTwin` from `runs` simulated runs (many: its effect and spreads near the process's own)."""
    rng = np.random.default_rng(seed)
    rows = [
        design.pair_counts(arm_steps(shape(rng, effect), pair), in_tail(), pair) | {"family": "f", "seed": r}
        for r in range(runs)
    ]
    return design.twins(pd.DataFrame(rows))[pair.label]


def held_rate(pair, effect: float, calls: int | dict, reps: int, seed: int, stats, assumed: bool = False) -> float:
    """The share of `reps` simulated slices (RUNS fresh runs each, planned with `calls`) whose claims row for
    `pair` (tail error, the claim's side of 0) is HELD; `assumed`: the plan splits calls between strata by the
    assumed spreads alone (the old plan), not by the twin's."""
    from tailmem.studies.controller import tables as ct

    rng = np.random.default_rng(seed)
    held = 0
    for rep in range(reps):
        frames, plans = [], []
        for r in range(RUNS):
            run = shape(rng, effect)
            steps = arm_steps(run, pair)
            shown = {a: f.drop(columns="correct") for a, f in steps.items()} if assumed else steps
            planned = design.plan(shown, in_tail(), calls, 0.002, seed=int(rng.integers(2**31)))
            plan = DesignPlan(
                "f",
                r,
                design.claim_arms(),
                STEPS,
                planned.informative,
                0.002,
                planned.steps,
                planned.weights,
                [vars(p) for p in planned.pairs],
                True,
            )
            plans.append(plan)
            for arm in (pair.a, pair.b):
                called = np.isin(np.arange(STEPS), list(plan.arm_calls(arm)))
                frames.append(
                    steps[arm].assign(
                        correct=np.where(called, steps[arm].correct, np.nan),
                        called=called,
                        weight=0.0,
                        arm=arm,
                        family="f",
                        seed=r,
                        in_tail=in_tail(),
                        prompt_tokens=1,
                    )
                )
        row = ct.compare_arms(
            pd.concat(frames, ignore_index=True),
            pair.a,
            pair.b,
            "tail_error",
            pair.side,
            0.0,
            stats,
            ct.pair_weight_frame(plans),
        )
        held += row["verdict"] == "HELD"
    return held / reps


def main() -> None:
    from tailmem.stats.group import shipped

    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--effect", type=float, default=-0.045)
    args = ap.parse_args()
    stats = shipped(resamples=200)
    pair = design.claim_pairs()[0]  # Table 5 (verbose): tail error, CTMC lower
    t = exact_twin(pair, args.effect)
    seen = twin(pair, args.effect, 400, seed=1)
    alpha = stats.alpha
    new = t.calls_for(RUNS, alpha, 0.8)
    print(
        f"{pair.label}: {RUNS} runs x {STEPS} steps ({TAIL} tail: {DECISIVE} decisive, {FORMAT} format), true "
        f"difference {args.effect:+.3f}; twin: effect {t.effect:+.4f}, SD between runs {t.sd_between:.4f} (the "
        f"process's; estimated from 400 simulated runs: {seen.effect:+.4f}, {seen.sd_between:.4f})\n"
    )
    print("| plan | tail draws per run | draw SD per run | planned power | HELD (simulated) |")
    print("|---|---|---|---|---|")
    every = int(t.sizes[:, :2].sum(axis=1).max())
    plans = (("old: 4 tail draws, assumed spreads", 4, True), ("every tail step", every, False), ("new", new, False))
    for name, calls, assumed in plans:
        d = t.draws(calls, calls)
        sd = np.sqrt(max(t.unit_sd(d) ** 2 - t.sd_between**2, 0.0))
        rate = held_rate(pair, args.effect, calls, args.reps, seed=7, stats=stats, assumed=assumed)
        se = np.sqrt(rate * (1 - rate) / args.reps)
        print(f"| {name} | {calls} | {sd:.3f} | {t.power(RUNS, d, alpha):.2f} | {rate:.2f} +- {se:.2f} |")


if __name__ == "__main__":
    main()
