"""claims_ctmc prints each error row's planned power beside its verdict, and a pair the plan gives no calls is not
read as an exact zero.

Finding: a budget allotment can leave a pair of arms without calls (`design.spend_budget`). `compare_arms` then
reads its runs from the steps whose prompts the arms share alone (exactly 0), so the row showed estimate 0 on an
interval of [0, 0], a measurement that never happened. Here a constructed plan allots Table 5's verbose pair no
calls while every other pair draws three tail steps per run.
"""

import numpy as np
import pandas as pd
import pytest

from control_kit import run_summaries
from tailmem.control import arms, design
from tailmem.records.control import DesignPlan
from tailmem.report.claims import PLANNED_POWER
from tailmem.stats.group import shipped
from tailmem.stats.verdict import INCONCLUSIVE
from tailmem.studies.controller import tables as ct

RUNS, STEPS, TAIL = 6, 40, 20
DIFFERING = (0, 1, 2, 3, 4, 5)  # tail steps whose blocks differ between every two arms
DRAWN = (1, 2, 3)  # a planned pair's draws among them (weight 6 / 3 each)
SAMPLED = (10, 30)  # the shared sample: steps whose prompts every arm shares
UNPLANNED = design.claim_pairs()[0]  # Table 5 (verbose): CTMC vs Graph Memory
POWERS = {p.label: 0.0 if p == UNPLANNED else round(0.5 + 0.05 * i, 2) for i, p in enumerate(design.claim_pairs())}


def better(arm: str) -> bool:
    """The arms the claims find better are right at every differing step, the others wrong."""
    return arm.startswith("ctmc") or arm == arms.table6_arms()[0]


def planned_replay():
    """Every claim arm's rows of RUNS planned replays, and the plans' pair weights: the unplanned pair draws no
    step and is allotted (0, 0) calls, every other pair draws DRAWN."""
    rows, plans = [], []
    for seed in range(RUNS):
        pairs, calls = [], []
        for a, b in design.arm_pairs():
            none = (a, b) == (UNPLANNED.a, UNPLANNED.b)
            drawn = [] if none else list(DRAWN)
            pairs.append(
                {"a": a, "b": b, "steps": drawn, "weights": [2.0] * len(drawn), "strata": ["tail/format"] * len(drawn)}
            )
            calls.append({"a": a, "b": b, "tail": 0 if none else len(DRAWN), "other": 0})
        plan = DesignPlan(
            "modular",
            seed,
            design.claim_arms(),
            STEPS,
            len(DIFFERING),
            0.05,
            list(SAMPLED),
            [20.0] * 2,
            pairs,
            True,
            pair_calls=calls,
            planned_power=POWERS,
        )
        plans.append(plan)
        for arm in design.claim_arms():
            at = plan.arm_calls(arm)
            t = np.arange(STEPS)
            called = np.isin(t, list(at))
            right = [float(better(arm)) if s in DIFFERING else 1.0 for s in t]
            rows.append(
                pd.DataFrame(
                    {
                        "step": t,
                        "state": t,
                        "correct": np.where(called, right, np.nan),
                        "covered": True,
                        "mentions_next": True,
                        "prompt_tokens": 100,
                        "called": called,
                        "prompt_sha": [f"{arm}-{s}" if s in DIFFERING else f"same-{s}" for s in t],
                        "weight": [at.get(int(s), 0.0) for s in t],
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
    counts = {key: np.arange(STEPS) for key in g.groups}
    tau = pd.DataFrame({"tau": [0.0, 1.0] * RUNS, "seed": np.repeat(range(RUNS), 2), "family": "modular"})
    for m in ("gini", "skew", "max_median"):
        tau[m] = tau.tau
    return ct.with_shared_tail(summaries, steps, counts), tau, steps, ct.pair_weight_frame(plans)


UNPLANNED_ROW = "CTMC lowers tail error vs Graph Memory (verbose)"
PLANNED_ROW = "CTMC lowers tail error vs Graph Memory (compact)"


def test_an_unplanned_pair_reads_as_an_exact_zero_without_the_plan_s_allotment():
    """What the old table showed: the unplanned pair's runs rest on shared prompts alone, [0, 0]."""
    _, _, steps, weights = planned_replay()
    row = ct.compare_arms(steps, UNPLANNED.a, UNPLANNED.b, "tail_error", "less", 0.0, shipped(resamples=200), weights)
    assert row["estimate"] == 0.0 and row["ci_low"] == row["ci_high"] == 0.0
    assert ct.planned_calls(weights, UNPLANNED.a, UNPLANNED.b, "tail_error") == 0
    assert ct.planned_calls(weights, UNPLANNED.b, UNPLANNED.a, "overall_error") == 0
    compact = design.claim_pairs()[1]
    assert ct.planned_calls(weights, compact.a, compact.b, "tail_error") == RUNS * len(DRAWN)


def test_a_pair_the_plan_gives_no_calls_is_inconclusive_not_planned():
    df, tau, steps, weights = planned_replay()
    table = ct.claims(df, tau, steps, shipped(resamples=200, seed=0), weights).set_index("claim")
    row = table.loc[UNPLANNED_ROW]
    assert row.verdict == INCONCLUSIVE
    assert row.reason.startswith("not planned: planned power ")
    assert np.isnan(row.estimate) and np.isnan(row.ci_low) and np.isnan(row.ci_high)
    assert row.state_verdict == INCONCLUSIVE
    # a planned pair is read as before: its drawn steps decide it (CTMC right where Graph Memory is wrong)
    other = table.loc[PLANNED_ROW]
    assert other.estimate < 0 and not other.reason.startswith("not planned")


def test_the_planned_power_stands_beside_each_error_row_s_verdict():
    df, tau, steps, weights = planned_replay()
    table = ct.claims(df, tau, steps, shipped(resamples=200, seed=0), weights, planned=POWERS)
    columns = list(table.columns)
    assert columns[columns.index("verdict") + 1] == PLANNED_POWER
    rows = table.set_index("claim")
    assert rows.at[UNPLANNED_ROW, "reason"] == (
        "not planned: planned power 0.00 (the plan allots this pair of arms no calls on the steps the claim "
        "scores; only the steps whose prompts they share, exactly 0, could be read)"
    )
    assert rows.at[PLANNED_ROW, PLANNED_POWER] == POWERS["Table 5 (compact): CTMC vs Graph Memory"]
    assert rows.at["At a matched budget overall error: uniform < shuffled", PLANNED_POWER] == pytest.approx(
        POWERS["Table 6 (overall): uniform vs shuffled"]
    )
    # model-free rows and the rows that combine others have no plan: blank
    for blank in (
        "CTMC raises tail coverage vs Graph Memory (verbose)",
        "CTMC spends more tokens/step than Graph Memory (verbose)",
        "At a matched budget tail error orders CTMC < uniform < shuffled < reversed",
        "gini of access rises with tau",
    ):
        assert np.isnan(rows.at[blank, PLANNED_POWER]), blank
    assert rows[PLANNED_POWER].notna().sum() == len(design.claim_pairs())


def test_every_step_predicted_leaves_the_planned_power_blank():
    """Without a plan (every step predicted: the programmatic scale) no row has a planned power, and no row is
    'not planned'."""
    df, tau, steps, _ = planned_replay()
    every = steps.assign(called=True, correct=steps.correct.fillna(1.0))
    table = ct.claims(df, tau, every, shipped(resamples=200, seed=0))
    assert table[PLANNED_POWER].isna().all()
    assert not table.reason.fillna("").str.startswith("not planned").any()
