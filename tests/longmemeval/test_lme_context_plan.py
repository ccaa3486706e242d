"""LongMemEval's context check is planned like every other claim a slice plays: the design check gives it a row
(units counted from the data, power at its stated effect, calls and core-seconds), and the claims table prints
that power beside the row's verdict.

Finding: the claim "The reader responds to context" had no design row. A scale that answered questions again
without their evidence spent those calls with no plan, and one that did not (context_check 0) said nothing about
what the row would take."""

from tests.longmemeval.test_lme_reduction import planted

from tailmem.haystack.reduction import evaluate
from tailmem.report.claims import PLANNED_POWER
from tailmem.stats.group import shipped
from tailmem.studies.longmemeval import claim_specs
from tailmem.studies.longmemeval import design_rows as lme_rows
from tailmem.studies.longmemeval import tables as lt
from tailmem.studies.longmemeval.questions import asked, context_checked
from tailmem.workflow import compose_config


def test_the_context_row_counts_the_questions_the_stage_checks():
    cfg = compose_config("default", ["longmemeval.max_per_type=4", "longmemeval.context_check=null"])
    acc, ctx = lme_rows.rows(cfg, 6, 0.025)
    assert acc["claim"] == claim_specs.DESIGN_CLAIM and ctx["claim"] == claim_specs.CONTEXT_DESIGN_CLAIM
    _, questions = asked(cfg.longmemeval)
    assert len(questions) == 24 and acc["planned_units"] == 24
    checked = len(context_checked(questions, None))
    assert checked == ctx["planned_units"] < 24  # abstention questions are not checked
    per_q = cfg.power.call_seconds.reader + cfg.power.call_seconds.judge
    assert ctx["core_seconds"] == checked * per_q and 0 < ctx["planned_power"] < 1
    capped = compose_config("default", ["longmemeval.max_per_type=4", "longmemeval.context_check=5"])
    assert lme_rows.context_row(capped, 6, 0.025)["planned_units"] == 5


def test_a_scale_that_skips_the_check_says_so_and_what_it_would_take():
    cfg = compose_config("default", ["longmemeval.context_check=0"])
    row = lme_rows.context_row(cfg, 6, 0.025)
    assert row["runs"] == 0 and "context_check = 0" in row["plan"]
    assert row["units_for_80"] and row["units_for_80"] >= 6


def test_the_claims_table_prints_the_plan_beside_the_context_row():
    rows, _ = planted({1.0: 0.0, 0.5: 0.4}, questions=30, seeds=(0,))
    planned = {claim_specs.DESIGN_CLAIM: 0.4, claim_specs.CONTEXT_DESIGN_CLAIM: 0.9}
    df = lt.claims(evaluate(rows, 0.05, shipped(resamples=200, seed=0)), 0.05, planned=planned).set_index("claim")
    context = next(c for c in df.index if c.startswith("The reader responds to context"))
    assert df.loc[context, PLANNED_POWER] == 0.9
    assert df[PLANNED_POWER].notna().sum() == 2
