"""Issue 29 finding 3: units that are not independent.

claims_ctmc resampled hundreds of states pooled from 3 seeds as if each were independent, though the states of one
trajectory share its memory and its quirks. Each row now reports the state-level interval beside a run-level one
(runs resampled, then states within them; exact at few runs) with the number of independent runs, and decides on
the runs; a row whose two readings differ says so. Synthetic per-step records with planted per-run effects.
"""

import numpy as np
import pandas as pd

from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE
from tailmem.studies.controller import tables as ct

S = shipped(resamples=1000, seed=0)
STATES, STEPS, BASE = 80, 2000, 0.5


def steps_frame(effects: dict[tuple[str, int], float]) -> pd.DataFrame:
    """Arm A is right with probability BASE + the run's effect, arm B with BASE, at the same steps of each run."""
    parts = []
    for k, ((family, seed), effect) in enumerate(effects.items()):
        rng = np.random.default_rng(k)
        states = rng.integers(0, STATES, STEPS)
        for arm, p in (("A", BASE + effect), ("B", BASE)):
            right = rng.random(STEPS) < p
            parts.append(
                pd.DataFrame(
                    {
                        "step": np.arange(STEPS),
                        "state": states,
                        "correct": right,
                        "covered": right,
                        "prompt_tokens": 100,
                        "in_tail": True,
                        "arm": arm,
                        "family": family,
                        "seed": seed,
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def runs(families, seeds, effect) -> dict:
    return {
        (f, s): (effect(i) if callable(effect) else effect)
        for i, (f, s) in enumerate((f, s) for s in seeds for f in families)
    }


def lowers_error(effects) -> dict:
    return ct.compare_arms(steps_frame(effects), "A", "B", "overall_error", "less", 0.0, S)


def test_three_runs_are_too_few_whatever_their_states_say():
    row = lowers_error(runs(["modular"], [0, 1, 2], 0.2))
    assert row["state_verdict"] == HELD and row["n_states"] == 3 * STATES  # the old reading
    assert row["verdict"] == INCONCLUSIVE and row["reason"].startswith("too few units (3")
    assert row["n_units"] == 3 and row["unit"].startswith("run")
    assert "states as independent units: HELD" in row["reason"]


def test_per_run_effects_are_not_evidence_of_a_mean_effect():
    """12 runs whose effects alternate +0.25 / -0.20 (two of each in every seed): thousands of steps make the
    state-level interval exclude zero, the twelve runs do not."""
    row = lowers_error(runs(["a", "b", "c", "d"], [0, 1, 2], lambda i: 0.25 if i % 2 == 0 else -0.2))
    assert row["state_verdict"] == HELD and row["state_ci_high"] < 0
    assert row["verdict"] == INCONCLUSIVE and row["n_units"] == 12
    assert row["ci_low"] < 0 < row["ci_high"]
    assert "states as independent units: HELD" in row["reason"]


def test_a_shared_effect_over_enough_runs_is_held_by_both_readings():
    row = lowers_error(runs(["a", "b", "c", "d"], [0, 1, 2], 0.2))
    assert row["verdict"] == HELD and row["state_verdict"] == HELD and row["reason"] == ""
    assert row["n_units"] == 12 and row["n_seeds"] == 3 and row["ci_method"].startswith("exact")
    assert row["p_held"] <= 2**-12 + 1e-12  # every run's mean on the claimed side


def test_many_runs_use_the_cluster_bootstrap_and_it_is_wider_than_the_state_interval():
    rng = np.random.default_rng(3)
    row = lowers_error(runs(["a", "b", "c", "d", "e"], [0, 1, 2, 3], lambda i: 0.1 + rng.normal(0, 0.12)))
    assert row["n_units"] == 20 and row["ci_method"] == "bootstrap"
    assert row["ci_high"] - row["ci_low"] > 2 * (row["state_ci_high"] - row["state_ci_low"])
