"""The CTMC claims table on synthetic per-step records whose truth is planted: one shared tail set, intervals,
tests and verdicts that follow the planted effect."""

import numpy as np
import pandas as pd
import pytest

from tailmem.control import arms
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD
from tailmem.studies.controller import tables as ct

# six runs: the fewest on which a claim can be decided (stats.min_units); three runs are too few (issue 29,
# tests/control/test_control_claims_clustered.py)
SEEDS, STATES, STEPS = (0, 1, 2, 3, 4, 5), 60, 3000
SETTINGS = shipped(resamples=1000, seed=0)


def trajectory(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A skewed walk over the states and its access counts (visits, plus a retrieval bonus to popular states)."""
    rng = np.random.default_rng(100 + seed)
    p = 1.0 / np.arange(1, STATES + 1)
    states = rng.choice(STATES, size=STEPS, p=p / p.sum())
    counts = np.bincount(states, minlength=STATES) * 2 + rng.integers(0, 2, STATES)
    return states, counts


def synthetic(effect: float, tail_base: float = 0.45):
    """Every arm of Tables 5 and 6 on the same trajectories. In the shared tail, CTMC is right with probability
    tail_base + effect and Graph Memory with tail_base; the ablation arms get steadily worse. Tokens equal."""
    rows, counts = [], {}
    table6 = arms.table6_arms()
    arm_list = list(dict.fromkeys(arms.table5_arms() + table6))
    for seed in SEEDS:
        states, c = trajectory(seed)
        counts[("modular", seed)] = c
        tail = np.isin(states, ct.tail_states(pd.DataFrame({"state": states}), c, 0.5))
        for i, arm in enumerate(arm_list):
            u = np.random.default_rng([seed, i]).random(STEPS)  # each arm its own noise
            if arm.startswith("ctmc") and arm in table6:
                p = tail_base + effect - 0.12 * table6.index(arm)  # ctmc < uniform < shuffled < reversed in error
            else:
                p = tail_base + (effect if arm.startswith("ctmc") else 0.0)
            correct = np.where(tail, u < p, u < 0.8)
            rows.append(
                pd.DataFrame(
                    {
                        "step": np.arange(STEPS),
                        "state": states,
                        "correct": correct,
                        "covered": correct,
                        "prompt_tokens": 150 + (u * 3).astype(int),
                        "arm": arm,
                        "family": "modular",
                        "seed": seed,
                    }
                )
            )
    steps = ct.shared_tail(pd.concat(rows, ignore_index=True), counts, 0.5)
    g = steps.groupby(["arm", "family", "seed"])
    summaries = pd.DataFrame(
        {
            "tokens_per_step": g.prompt_tokens.mean(),
            "overall_error": 1 - g.correct.mean(),
            "overall_coverage": g.covered.mean(),
            "tail_error": 1 - g.correct.mean(),
            "tail_coverage": g.covered.mean(),
        }
    ).reset_index()
    summaries["label"], summaries["encoding"] = summaries.arm, "compact"
    df = ct.with_shared_tail(summaries, steps)
    tau = pd.DataFrame(
        [
            {
                "tau": t,
                "family": "modular",
                "seed": s,
                "gini": 0.3 + 0.1 * t + 0.01 * s,
                "skew": 1 + t,
                "max_median": 2 + t,
            }
            for t in (0.0, 1.0, 2.0)
            for s in SEEDS
        ]
    )
    return df, tau, steps


def row(table: pd.DataFrame, claim: str) -> pd.Series:
    hit = table[table.claim == claim]
    assert len(hit) == 1, claim
    return hit.iloc[0]


def test_every_arm_is_scored_on_the_same_tail_states():
    _, _, steps = synthetic(0.2)
    for _, run in steps.groupby(["family", "seed"]):
        tails = {arm: frozenset(sub.state[sub.in_tail]) for arm, sub in run.groupby("arm")}
        assert len(set(tails.values())) == 1
        assert 0 < len(next(iter(tails.values()))) <= STATES // 2 + 1


def test_shared_tail_metrics_replace_the_own_ones_which_stay_beside_them():
    df, _, steps = synthetic(0.2)
    gm = df[df.arm == arms.baseline("graph_memory", "compact")].iloc[0]
    run = steps[(steps.arm == gm.arm) & (steps.seed == gm.seed) & steps.in_tail]
    assert gm.tail_error == pytest.approx(1 - run.correct.mean())
    assert "tail_error_own" in df and "tail_coverage_own" in df
    assert "tail_error_own" in ct.table5(df)


def test_a_planted_tail_gain_is_held_and_shrinking_it_below_the_noise_makes_it_inconclusive():
    claim = "CTMC lowers tail error vs Graph Memory (compact)"
    strong = ct.claims(*synthetic(0.2), SETTINGS)
    r = row(strong, claim)
    assert r.verdict == HELD and r.ci_high < 0 and r.unit.startswith("run") and r.n_seeds == len(SEEDS)
    assert r.n_units == len(SEEDS) and r.n_states > len(SEEDS) and r.state_verdict == HELD
    assert r.estimate == pytest.approx(-0.2, abs=0.06) and r.p_held < 0.025
    weak = ct.claims(*synthetic(0.005), SETTINGS)
    assert row(weak, claim).verdict == INCONCLUSIVE
    assert row(weak, claim).ci_low < 0 < row(weak, claim).ci_high


def test_a_planted_loss_is_not_held():
    table = ct.claims(*synthetic(-0.2), SETTINGS)
    assert row(table, "CTMC lowers tail error vs Graph Memory (compact)").verdict == NOT_HELD
    assert row(table, "CTMC lowers tail error vs Graph Memory at equal or fewer tokens (compact)").verdict == NOT_HELD


def test_orderings_tokens_and_tau_rows():
    table = ct.claims(*synthetic(0.2), SETTINGS)
    assert row(table, "At a matched budget tail error orders CTMC < uniform < shuffled < reversed").verdict == HELD
    assert row(table, "CTMC spends equal or fewer tokens/step than Graph Memory (compact)").verdict == HELD
    assert row(table, "Matched budgets are matched: reversed vs CTMC tokens/step").verdict == HELD
    tau = row(table, "gini of access rises with tau")
    assert tau.n_units == len(SEEDS) and tau.estimate == pytest.approx(0.1)
    assert set(table.verdict) <= {HELD, NOT_HELD, INCONCLUSIVE}
    assert {"estimate", "ci_low", "ci_high", "p_held", "p_not_held", "reason", "side", "evidence"} <= set(table.columns)


def test_a_claim_added_as_one_record_becomes_a_row(monkeypatch):
    """docs/extending.md, "A claim": one record appended to `claim_specs.CTMC`, no other edit."""
    from tailmem.report.claims import Claim
    from tailmem.studies.controller import claim_specs

    added = Claim(
        "CTMC lowers overall error vs Graph Memory (compact)",
        arm=arms.nominal_ctmc("compact"),
        baseline=arms.baseline("graph_memory", "compact"),
        metric="overall_error",
        side="less",
        evidence="Graph Memory {b:.3f}, CTMC {a:.3f}",
        paper="paper: none",
    )
    monkeypatch.setattr(claim_specs, "CTMC", (*claim_specs.CTMC, added))
    table = ct.claims(*synthetic(0.2), SETTINGS)
    r = row(table, added.words)
    assert table.claim.iloc[-1] == added.words and r.side == "< 0" and r.unit.startswith("run")
    assert r.evidence.startswith("Graph Memory 0.") and r.evidence.endswith("; paper: none")
