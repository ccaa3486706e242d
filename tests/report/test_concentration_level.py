"""The concentration rows' test, simulated on the twin before it reads a row (studies/random_walk/twin.py).

Finding (session 11): the rows of the LLM policy's concentration beside the random walk's read one difference per
world with the sign-flip rule at stats.alpha. On the twin's per-world differences, which are skewed, that rule holds
3.0-3.4% of draws centred on the boundary (Gini, top-10% share) where it claims 2.5%. The Gini row was read that
way in every model slice; the top-10% share was left out for a level measured on 30 worlds, within noise of Gini's.
"""

import numpy as np
import pytest

from tailmem.runner import compose_stage
from tailmem.settings.power import SimulatedLevel
from tailmem.stats.group import settings as stats_settings
from tailmem.stats.group import shipped
from tailmem.stats.sign_flip import p_value
from tailmem.stats.verdict import HELD, INCONCLUSIVE
from tailmem.studies.random_walk import design_rows, twin
from tailmem.studies.random_walk import tables as rw
from tailmem.studies.random_walk.claim_specs import CONCENTRATION
from tailmem.workflow import graph_option

S = shipped(resamples=1000, seed=0)
ALPHA = S.alpha


@pytest.fixture(scope="module")
def default_model():
    return compose_stage("random_walk_design_rows", ["scale=default_model"])


@pytest.fixture(scope="module")
def levels():
    """The rule on 8 of the twin's differences at default_model's design (2 families x 150 worlds of 150 states,
    50 steps; 20,000 draws): about 25 s on 2 cores."""
    frame = twin.frame({f: graph_option(f) for f in ("scale_free", "modular")}, 150, 150, 1, 50)
    return {m: twin.level(twin.differences(frame, m), 8, ALPHA, reps=20_000) for m in twin.MEASURES}


@pytest.mark.slow
def test_the_sign_flip_rule_read_at_alpha_overclaims_on_the_twins_differences(levels):
    for measure in ("gini", "top10_share"):
        lv = levels[measure]
        assert lv.at_alpha > ALPHA + 3 * lv.sd(ALPHA), (measure, lv)  # 3.2% and 3.4% here
        assert lv.critical_p < ALPHA and lv.false_held <= ALPHA, (measure, lv)
    lv = levels["sigma_top10"]  # skewed the other way: the rule is conservative, and read at alpha's own p
    assert lv.at_alpha < ALPHA and lv.critical_p == 6 / 256


@pytest.mark.slow
def test_default_models_levels_are_the_twins(levels, default_model):
    """The critical p the shipped config reads each row at is the one the twin gives (a larger twin printed the
    config's figures: benchmarks/bench_concentration_verdict.py)."""
    for measure, c in CONCENTRATION.items():
        shipped_level = default_model.power.stated_effects[c.stated].level
        assert shipped_level.units == 8 and shipped_level.critical_p == levels[measure].critical_p, measure
        assert shipped_level.false_held <= ALPHA < shipped_level.at_alpha or measure == "sigma_top10"


# 8 worlds whose exact sign-flip p is 5/256: between 4/256 (Gini's and the share's critical p) and alpha
BETWEEN = np.array([0.071, 0.085, -0.009, 0.017, 0.028, -0.008, 0.137, 0.025])


def _frame(diff):
    import pandas as pd

    n = len(diff)
    out = {"family": ["scale_free"] * (n // 2) + ["modular"] * (n - n // 2), "n": 150, "seed": list(range(n))}
    out["steps"] = 50
    for m in twin.MEASURES:
        out[f"{m}_a"], out[f"{m}_b"] = 0.5 + np.asarray(diff), 0.5
    return pd.DataFrame(out)


def _level(units: int, k: int) -> SimulatedLevel:
    return SimulatedLevel(units=units, critical_p=k / 2**units, at_alpha=0.031, false_held=0.021)


def test_a_row_between_its_critical_p_and_alpha_is_not_held():
    assert p_value(BETWEEN) == pytest.approx(5 / 256)
    frame = _frame(BETWEEN)
    strict = rw.concentration_claims(frame, "llm", S, levels={m: _level(8, 4) for m in twin.MEASURES})
    assert {r["verdict"] for r in strict} == {INCONCLUSIVE}, strict
    assert all(r["p_held"] == pytest.approx(5 / 256) for r in strict)
    assert "read at p <= 0.01562" in strict[0]["evidence"]
    loose = rw.concentration_claims(frame, "llm", S, levels={m: _level(8, 6) for m in twin.MEASURES})
    assert {r["verdict"] for r in loose} == {HELD}, loose


def test_a_level_simulated_for_other_units_is_not_used():
    rows = rw.concentration_claims(_frame(BETWEEN + 0.2), "llm", S, levels={m: _level(10, 20) for m in twin.MEASURES})
    assert {r["verdict"] for r in rows} == {INCONCLUSIVE}
    assert all("simulated at 10 worlds, not 8" in r["reason"] for r in rows), rows


def test_the_design_check_plans_each_measure_at_its_critical_p(default_model):
    st = stats_settings(default_model)
    rows = {r["claim"]: r for r in design_rows.rows(default_model, st.min_units, st.alpha)}
    share = rows["LLM policy vs random walk: top-10% share over the same steps"]
    assert share["runs"] == 8 and "read at p <= 0.01562" in share["plan"]
    at_alpha = design_rows.stated.claim_row(
        default_model.power, "policy_top10_share", "x", "runs", 8, st.min_units, st.alpha, 50
    )
    assert share["planned_power"] < at_alpha["planned_power"]  # the stricter p costs power, and the plan says so
    smoke = compose_stage("random_walk_design_rows", ["scale=smoke_model"])
    for r in design_rows.rows(smoke, st.min_units, st.alpha)[1:]:
        assert r["plan"].startswith("undecidable by design"), r  # 1 world: too few, whatever the level
    unset = compose_stage(
        "random_walk_design_rows", ["scale=default_model", "power.stated_effects.policy_gini.level=null"]
    )
    gini = design_rows.rows(unset, st.min_units, st.alpha)[1]
    assert gini["planned_power"] == 0.0 and "not simulated" in gini["plan"]


def test_a_critical_p_of_random_flips_is_not_rounded_away():
    """12 / 2001 (random flips above 15 units) read through a confidence came back 1e-17 below itself, so a row
    whose p was exactly the critical p would have been undecided."""
    for k in range(1, 51):
        for critical in (k / 2001, k / 2**10):
            alpha = rw.settings_at(S, critical).alpha
            assert critical <= alpha < critical * (1 + 1e-6), (k, critical, alpha)
