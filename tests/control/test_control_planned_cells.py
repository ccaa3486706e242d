"""A planned model replay's per-arm error cells agree with the claims rows that compare them.

Finding: with `control.plan_sample: 0.002` most runs draw no shared tail step, so an arm's own tail error (Tables
5-6, and the a/b values in the claims' evidence) rested on about 3 steps in all, and could point the other way from
the row, whose difference reads the pair's own weighted draws. Here a constructed plan makes them part: on the one
sampled step that tells the arms apart, the arms the rows find worse are right; on the pair's drawn steps, wrong.
"""

import re

import numpy as np
import pandas as pd
import pytest

from control_kit import run_summaries
from tailmem.control import arms, design
from tailmem.records.control import DesignPlan
from tailmem.stats.group import shipped
from tailmem.studies.controller import tables as ct

RUNS, STEPS, TAIL = 6, 40, 20
SAMPLE = 0.002
DIFFERING = (0, 1, 2, 3, 4, 5)  # tail steps whose blocks differ between every two arms
DRAWN = (1, 2, 3)  # the pairs' draws among them (weight 6 / 3 each)
SAMPLED = (0, 10)  # the shared sample: one differing step, one whose prompts every arm shares
# the evidence's two values: "<baseline> 0.300, <arm> 0.000", each perhaps marked with the steps it rests on
EVIDENCE = re.compile(
    r"(?:Graph Memory|ctmc|uniform|shuffled) ([\d.]+)[^,]*, (?:matched )?(?:CTMC|uniform|shuffled|reversed) ([\d.]+)"
)
TABLE5 = [[arms.baseline("graph_memory", enc), arms.nominal_ctmc(enc)] for enc in arms.ENCODINGS]


def rank(arm: str) -> int:
    """How wrong the rows should find an arm: CTMC (nominal or matched) 0, then uniform, shuffled, reversed;
    Graph Memory 3."""
    if arm in arms.table6_arms():
        return arms.table6_arms().index(arm)
    return 3 if arm.startswith("graph_memory") else 0


def correct_at(arm: str, step: int) -> float:
    if step in DRAWN:  # an arm of rank k is right at the drawn steps after the k-th
        return float(step > rank(arm))
    if step == 0:  # the sampled differing step: the other way round for half of the pairs
        return float(rank(arm) % 2 == 1)
    return 1.0 if step < TAIL else float(step % 3 != 0)  # a shared prompt: one answer for every arm


def planned(apart: str | None = None):
    """Every claim arm's rows of RUNS planned replays, and the plans' pair weights; arm `apart`'s prompt at the
    sampled shared step is its own (so its pairs sample no step whose prompts they share)."""
    rows, plans = [], []
    for seed in range(RUNS):
        pairs = [
            {"a": a, "b": b, "steps": list(DRAWN), "weights": [2.0] * 3, "strata": ["tail/format"] * 3}
            for a, b in design.arm_pairs()
        ]
        plan = DesignPlan(
            "modular",
            seed,
            design.claim_arms(),
            STEPS,
            len(DIFFERING),
            SAMPLE,
            list(SAMPLED),
            [1 / SAMPLE] * 2,
            pairs,
            True,
        )
        plans.append(plan)
        for arm in design.claim_arms():
            calls = plan.arm_calls(arm)
            t = np.arange(STEPS)
            called = np.isin(t, list(calls))
            rows.append(
                pd.DataFrame(
                    {
                        "step": t,
                        "state": t,
                        "correct": [correct_at(arm, s) if c else np.nan for s, c in zip(t, called)],
                        "covered": True,
                        "mentions_next": True,
                        "prompt_tokens": 100,
                        "called": called,
                        "prompt_sha": [
                            f"{arm}-{s}" if s in DIFFERING or (arm == apart and s == SAMPLED[1]) else f"same-{s}"
                            for s in t
                        ],
                        "weight": [calls.get(int(s), 0.0) for s in t],
                        "in_tail": t < TAIL,
                        "arm": arm,
                        "family": "modular",
                        "seed": seed,
                    }
                )
            )
    steps = pd.concat(rows, ignore_index=True)
    g = steps.groupby(["arm", "family", "seed"])
    summaries = run_summaries(steps)
    counts = {key: np.arange(STEPS) for key in g.groups}  # each arm's own tail: its first half of the states
    return ct.with_shared_tail(summaries, steps, counts), steps, ct.pair_weight_frame(plans)


def chains() -> list[tuple[list[str], str]]:
    """(neighbouring arms, metric) of every claims row that compares two arms' errors in Tables 5 and 6."""
    return [(c, "tail_error") for c in TABLE5] + [(arms.table6_arms(), m) for m in ("tail_error", "overall_error")]


def test_the_constructed_plan_makes_the_old_cells_point_the_other_way():
    """The arms' own errors (the shared sample's two steps per run) against the rows: where the worse arm is right
    at the sampled differing step, its own cell is the lower one."""
    df, steps, weights = planned()
    own = df.groupby("arm")[["tail_error", "overall_error"]].mean()
    flipped = []
    for chain, metric in chains():
        for lo, hi in zip(chain, chain[1:]):
            row = ct.compare_arms(steps, hi, lo, metric, "greater", 0.0, shipped(resamples=200), weights)
            if np.sign(own.at[hi, metric] - own.at[lo, metric]) == -np.sign(row["estimate"]) != 0:
                flipped.append((metric, lo, hi))
    assert len(flipped) == 2 + 2 * 2, flipped  # Table 5 per encoding; uniform and reversed in Table 6, twice


def test_the_claims_evidence_values_agree_with_their_row():
    df, steps, weights = planned()
    tau = pd.DataFrame({"tau": [0.0, 1.0] * RUNS, "seed": np.repeat(range(RUNS), 2), "family": "modular"})
    for m in ("gini", "skew", "max_median"):
        tau[m] = tau.tau
    table = ct.claims(df, tau, steps, shipped(resamples=200, seed=0), weights)
    names = ("ctmc", "uniform", "shuffled", "reversed")
    checked = 0
    for _, r in table.iterrows():
        m = EVIDENCE.search(r.evidence)
        if m is None or "error" not in r.claim or not np.isfinite(r.estimate):
            continue
        b, a = float(m[1]), float(m[2])
        assert a - b == pytest.approx(r.estimate, abs=2e-3), (r.claim, r.evidence, r.estimate)
        if "own tail" in r.evidence:  # an own tail reads the sample alone: both its steps per run fall in it
            n = RUNS * len(SAMPLED)
            assert f"(on {n} vs {n} answered steps)" in r.evidence, r.evidence
        checked += 1
    assert checked == 2 + 1 + 2 * (len(names) - 1)  # Table 5 per encoding, matched vs Graph Memory, the ablations


def test_table5_and_table6_cells_agree_with_the_rows_and_say_what_they_rest_on():
    df, steps, weights = planned()
    cells = ct.planned_cells(steps, weights)
    t5, t6 = ct.table5(df, cells), ct.table6(df, cells)
    for chain, metric in chains():
        table = t6 if chain == arms.table6_arms() else t5
        value = table.set_index("arm")[metric]
        for lo, hi in zip(chain, chain[1:]):
            row = ct.compare_arms(steps, hi, lo, metric, "greater", 0.0, shipped(resamples=200), weights)
            assert value[hi] - value[lo] == pytest.approx(row["estimate"]), (metric, lo, hi)
        assert (table.set_index("arm").loc[chain, f"{metric}_steps"] > 0).all()
    # a cell no claims row compares rests on the shared sample alone, and says on how few steps
    overall = t5.set_index("arm")["overall_error_steps"]
    assert (overall == RUNS * len(SAMPLED)).all()


def test_a_chain_is_placed_by_the_pair_whose_shared_prompts_were_sampled():
    """CTMC's pairs sample no shared-prompt step: their common error falls back on every sampled step, so Table
    6's chain is placed by the next pair, whose sample holds shared prompts, and CTMC's cell is uniform's minus
    their row's estimate."""
    df, steps, weights = planned(apart=arms.table6_arms()[0])
    chain = arms.table6_arms()
    first = ct.pair_levels(steps, chain[1], chain[0], "tail_error", weights)
    assert first["any_prompt"] and first["sampled"] == RUNS * len(SAMPLED)
    second = ct.pair_levels(steps, chain[2], chain[1], "tail_error", weights)
    assert not second["any_prompt"] and second["sampled"] == RUNS
    t6 = ct.table6(df, ct.planned_cells(steps, weights)).set_index("arm")
    assert t6.at[chain[1], "tail_error"] == pytest.approx(second["b"])
    assert t6.at[chain[2], "tail_error"] == pytest.approx(second["a"])
    for lo, hi in zip(chain, chain[1:]):
        row = ct.compare_arms(steps, hi, lo, "tail_error", "greater", 0.0, shipped(resamples=200), weights)
        assert t6.at[hi, "tail_error"] - t6.at[lo, "tail_error"] == pytest.approx(row["estimate"])
