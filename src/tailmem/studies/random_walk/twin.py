"""The concentration rows' model-free twin, and the level of their test simulated on it before a row is read.

The rows of `claims_random_walk` that set the LLM policy's access concentration beside the random walk's on the same
world and steps (`tables.concentration_claims`) read one difference per world with the sign-flip rule of
`stats.compare`, which is exact when the differences are symmetric about the claim's boundary. The twin's are not:
the semantic proxy (the model-free stand-in for the LLM policy) beside the random walk on 600 worlds of
default_model's design gives per-world differences skewed -0.24 (Gini) and -0.29 (top-10% share). Drawn 8 at a time
and centred on 0, where every HELD is false, the rule read at stats.alpha (p <= 0.025) holds 3.0% and 3.2% of them.

So each measure's row is read at a critical p fixed beforehand on the twin (`power.stated_effects.policy_<measure>
.level`): the largest p the rule gives whose simulated false HELD stays within alpha, at the units the row
has. Why a fixed number and not a simulation in the stage: the twin of a design takes about a minute of rollouts,
and a stated effect is measured the same way (benchmarks/bench_concentration_verdict.py prints both).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tailmem.graphworld.build import world_from_config
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import Semantic
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup
from tailmem.stats import sign_flip
from tailmem.studies.random_walk.claim_specs import CONCENTRATION
from tailmem.studies.random_walk.tables import concentration_frame

RETRIEVAL = RetrievalGroup(name="recency", k=5)  # the model slices' retrieval design (scale.retrieval_designs)
TOP_FRACTION = 0.1  # audit.top_fraction: the share's and sigma_top10's top 10% of items
MEASURES = tuple(CONCENTRATION)  # the measures the claims rows read (concentration_frame's columns)


def frame(
    options: Mapping[str, dict], worlds: int, n: int, episodes: int, steps: int, first_seed: int = 0
) -> pd.DataFrame:
    """`tables.concentration_frame` of the semantic proxy beside the random walk over the same steps, on `worlds`
    worlds of `n` states per family (`options`: family -> its `graph` group, `workflow.graph_option`; seeds from
    `first_seed`): the data a model slice's rows read, without a model. Each plays `episodes` x `steps` steps, as
    the model does (`rollout.model_episodes`, else `rollout.episodes`, x `rollout.steps`)."""
    length = RolloutGroup(episodes=int(episodes), steps=int(steps), start="uniform")
    policy, walk = {}, {}
    for family, option in options.items():
        for seed in range(first_seed, first_seed + int(worlds)):
            world = world_from_config({**option, "n": int(n)}, seed=seed)
            trace = rollout(world, length, RETRIEVAL, seed, policy=Semantic(world, seed))
            key = (family, int(n), seed, trace.total_steps)
            policy[key] = trace.counts
            walk[key] = rollout(world, length, RETRIEVAL, seed).counts_over(trace.total_steps)
    return concentration_frame(policy, walk, TOP_FRACTION)


def differences(twin: pd.DataFrame, measure: str) -> np.ndarray:
    """The policy's value minus the walk's, one per world."""
    return (twin[f"{measure}_a"] - twin[f"{measure}_b"]).to_numpy(dtype=float)


@dataclass(frozen=True)
class Level:
    """The sign-flip rule on `units` of a measure's differences: its false HELD read at alpha (`at_alpha`), the
    largest p the rule gives whose false HELD stays within alpha (`critical_p`, with its rate `false_held`),
    and the power at the twin's own effect read there (`power`). `sd`: a rate's simulation sd at `reps`."""

    units: int
    alpha: float
    at_alpha: float
    critical_p: float
    false_held: float
    power: float
    reps: int

    def sd(self, rate: float) -> float:
        return float(np.sqrt(rate * (1.0 - rate) / self.reps))


def p_values(
    diff: np.ndarray, units: int, reps: int, rng: np.random.Generator, resamples: int, seed: int
) -> np.ndarray:
    """One-sided p ("greater", threshold 0) of `stats.sign_flip.p_value` on `reps` draws of `units` of `diff`, with
    the random flips (`resamples`, `seed`: the stats group's) it uses above `sign_flip.EXACT_MAX` units."""
    return np.array(
        [
            sign_flip.p_value(rng.choice(diff, units, replace=True), None, 0.0, "greater", resamples, seed)
            for _ in range(reps)
        ]
    )


def reachable(units: int, resamples: int) -> np.ndarray:
    """Every p the rule can give: k / 2^units with every flip enumerated, else (k + 1) / (resamples + 1)."""
    if units <= sign_flip.EXACT_MAX:
        return np.arange(1, 2**units + 1) / 2**units
    return np.arange(1, resamples + 2) / (resamples + 1)


def level(
    diff: np.ndarray,
    units: int,
    alpha: float,
    reps: int = 100_000,
    seed: int = 0,
    resamples: int = 2000,
    flips_seed: int = 0,
) -> Level:
    """Simulate the rule on `units` draws of `diff` centred on 0 (the claim's boundary: every HELD false) and as
    measured. The critical p is one of the p values the rule can give (`reachable`), at most alpha. Only the p is
    read here: the row's interval inverts the same test at confidence 1 - 2 x critical_p
    (`tables.concentration_claims`). `resamples`, `flips_seed`: the stats group's, for the random flips above
    `sign_flip.EXACT_MAX` units."""
    rng = np.random.default_rng(seed)
    null = p_values(diff - diff.mean(), units, reps, rng, resamples, flips_seed)
    alt = p_values(diff, units, reps, rng, resamples, flips_seed)
    tol = 1e-12
    candidates = reachable(units, resamples)
    candidates = candidates[candidates <= alpha + tol]
    ok = [c for c in candidates if np.mean(null <= c + tol) <= alpha]
    critical = float(ok[-1]) if ok else 0.0
    return Level(
        units=units,
        alpha=alpha,
        at_alpha=float(np.mean(null <= alpha + tol)),
        critical_p=critical,
        false_held=float(np.mean(null <= critical + tol)),
        power=float(np.mean(alt <= critical + tol)),
        reps=reps,
    )
