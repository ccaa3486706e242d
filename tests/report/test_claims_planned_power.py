"""Every claims table prints, beside each verdict, the power the design check planned the row for, and a scale can
check its verdicts against its plan (of the rows planned at 80% power or more, the share decided).

The other studies' rows are planned at their stated effects (`tailmem.power.stated`: each study's
`design_rows.row`, the design check's last rows); a row names the design-check row that plans it (`Claim.planned`), and a row no plan covers (a model-free
metric, a combined row, another benchmark) is blank."""

import numpy as np
import pandas as pd
import pytest

from tailmem.power.stated import planned_power
from tailmem.report.claims import (
    PLANNED_POWER,
    SHARED,
    Claim,
    build,
    decided_share,
    planned_vs_decided,
    with_power,
)
from tailmem.stats.compare import COLUMNS
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD
from tailmem.studies.alfworld import claim_specs as alf_specs
from tailmem.studies.alfworld import tables as alf
from tailmem.studies.fsmem import claim_specs as fsmem_specs
from tailmem.studies.fsmem.claims import ANSWER_COLUMNS
from tailmem.studies.fsmem.claims import claims as fsmem_claims
from tailmem.studies.longmemeval import claim_specs as lme_specs
from tailmem.studies.longmemeval import design_rows as lme_rows
from tailmem.studies.longmemeval import tables as lt
from tailmem.studies.random_walk import claim_specs as rw_specs
from tailmem.studies.random_walk import design_rows as rw_rows
from tailmem.studies.random_walk import tables as rw

S = shipped(resamples=200, seed=0)


def test_the_planned_power_stands_right_after_the_verdict():
    assert SHARED[SHARED.index("verdict") + 1] == PLANNED_POWER
    assert [c for c in SHARED if c != PLANNED_POWER] == list(COLUMNS)
    assert with_power(["claim", "evidence"]) == ["claim", "evidence", PLANNED_POWER]  # no verdict: at the end
    assert with_power(SHARED) == list(SHARED)  # once only

    def compare(c: Claim) -> dict:
        return {"unit": "u", "side": "> 0", "verdict": HELD, "reason": "", "evidence": ""}

    spec = [
        Claim("x", metric="x", key="x", planned="plan x"),
        Claim("y", metric="y", key="y"),
        Claim("x and y", parts=("x", "y")),
    ]
    df = build(spec, compare, planned={"plan x": 0.83, "plan z": 0.1})
    assert list(df.columns[:5]) == ["claim", "unit", "side", "verdict", PLANNED_POWER]
    assert df[PLANNED_POWER].iloc[0] == 0.83
    assert df[PLANNED_POWER].iloc[1:].isna().all()  # planned by nothing; a combined row
    assert build(spec, compare)[PLANNED_POWER].isna().all()  # a scale that plans nothing: blank, not absent


def answers(variant: str, f1, benchmark: str = "locomo") -> pd.DataFrame:
    n = len(f1)
    return pd.DataFrame(
        {
            "study": "main",
            "benchmark": benchmark,
            "conversation": "conv-0",  # one conversation: its questions are the units
            "variant": variant,
            "harness": "center",
            "builder": "programmatic",
            "searcher": "programmatic",
            "qid": np.arange(n),
            "question": [f"q{i}?" for i in range(n)],
            "f1": f1,
            "judge_correct": None,
            "search_chars_read": 1000.0,
            "search_dollars": 0.0,
        }
    )[list(ANSWER_COLUMNS)]


def test_fsmem_prints_its_plan_beside_the_locomo_token_f1_rows_only():
    rng = np.random.default_rng(0)
    closed = rng.random(30) * 0.3
    frames = [answers(v, closed + d) for v, d in (("closed_book", 0.0), ("agent_curated", 0.3), ("verbatim", 0.3))]
    frames += [answers(v, closed + d, "realtalk") for v, d in (("closed_book", 0.0), ("agent_curated", 0.3))]
    planned = {fsmem_specs.DESIGN_CLAIM: 0.87}
    df = fsmem_claims(pd.concat(frames), S, 0.05, planned=planned)
    columns = list(df.columns)
    assert columns[columns.index("verdict") + 1] == PLANNED_POWER
    shown = df[df[PLANNED_POWER].notna()]
    assert set(shown.claim) == {
        f"A file-based store ({v}) answers better than closed book (token F1, the benchmark's scorer)"
        for v in ("verbatim", "agent_curated")
    }
    assert (shown.benchmark == "locomo").all() and (shown[PLANNED_POWER] == 0.87).all()
    assert (shown.verdict == HELD).all()
    # a run that did not play the verbatim store: its row has no plan (it does not count against the plan)
    unplayed = fsmem_claims(pd.concat(frames[:2]), S, 0.05, planned=planned)
    assert unplayed[PLANNED_POWER].notna().sum() == 1
    assert unplayed.loc[unplayed[PLANNED_POWER].notna(), "claim"].str.contains("agent_curated").all()


def test_longmemeval_prints_its_plan_beside_the_accuracy_row():
    from tests.longmemeval.test_lme_reduction import planted

    from tailmem.haystack.reduction import evaluate

    rows, _ = planted({1.0: 0.0, 0.5: 0.4}, questions=60, seeds=(0,))
    df = lt.claims(evaluate(rows, 0.05, S), 0.05, planned={lme_specs.DESIGN_CLAIM: 0.42})
    powers = df.set_index("claim")[PLANNED_POWER]
    assert powers.notna().sum() == 1
    assert powers[powers.notna()].index[0].startswith("CTMC accuracy non-inferior") and powers.max() == 0.42


def test_alfworld_prints_its_plan_beside_each_store_against_no_store():
    def cell(variant, wins):
        n = len(wins)
        return pd.DataFrame(
            {"protocol": "full_chain", "variant": variant, "index": range(n), "id": [f"g{i}" for i in range(n)]}
            | {"family": "pick_and_place_simple", "ran": True, "success": wins}
        )

    rng = np.random.default_rng(1)
    tasks = pd.concat([cell("no_store", rng.random(20) < 0.3), cell("episode_log", rng.random(20) < 0.8)])
    df = alf.skill_claims(tasks, S, 0.1, planned={alf_specs.DESIGN_CLAIM: 0.66})
    assert df[PLANNED_POWER].tolist() == [0.66]
    lonely = alf.skill_claims(cell("episode_log", rng.random(20) < 0.8), S, 0.1, planned={alf_specs.DESIGN_CLAIM: 0.66})
    assert lonely.reason.tolist() == ["a cell was not run"] and lonely[PLANNED_POWER].isna().all()
    assert list(alf.CLAIM_COLUMNS).index(PLANNED_POWER) == list(alf.CLAIM_COLUMNS).index("verdict") + 1


def test_the_random_walk_prints_the_policy_plan_beside_the_paired_tail_shape_row():
    from tests.report.test_random_walk_tables import tails_frame

    df = pd.DataFrame(rw.tail_shape_claims(tails_frame(-3.0, 3.0), "llm", S, {rw_specs.DESIGN_CLAIM: 0.9}))
    shown = df[df[PLANNED_POWER].notna()]
    assert shown.claim.tolist() == ["tail shape: R_tpl_ln of llm minus random walk > 0 (same world)"]
    assert shown[PLANNED_POWER].iloc[0] == 0.9


def test_a_study_the_scale_does_not_play_has_no_planned_power():
    """The smoke scale's policy tails come from the model-free proxy: the design check plans no run, so the tail
    shape row stays blank; its other studies' rows are the design check's own numbers."""
    from tailmem.workflow import compose_config

    cfg = compose_config("smoke")
    tails = rw_rows.row(cfg, 6, 0.025)
    assert tails["plan"].startswith("not run at this scale") and planned_power(tails) == {}
    row = lme_rows.row(cfg, 6, 0.025)
    assert row["claim"] == lme_specs.DESIGN_CLAIM and 0 < row["planned_power"] < 1
    assert planned_power(row) == {lme_specs.DESIGN_CLAIM: pytest.approx(row["planned_power"])}


def claims_table(powers, verdicts) -> pd.DataFrame:
    return pd.DataFrame({"claim": [f"c{i}" for i in range(len(powers))], "verdict": verdicts, PLANNED_POWER: powers})


def test_planned_vs_decided_lists_the_rows_planned_at_the_target_and_their_share_decided():
    tables = {
        "claims_a": claims_table([0.95, 0.8, 0.79, np.nan], [HELD, INCONCLUSIVE, HELD, NOT_HELD]),
        "claims_b": claims_table([0.99, 0.85, 0.3], [NOT_HELD, HELD, INCONCLUSIVE]),
        "claims_c": pd.DataFrame({"claim": ["old"], "verdict": [HELD]}),  # a table without the column
    }
    out = planned_vs_decided(tables)
    assert out[["table", "claim"]].values.tolist() == [
        ["claims_a", "c0"],
        ["claims_a", "c1"],
        ["claims_b", "c0"],
        ["claims_b", "c1"],
    ]
    assert out.decided.tolist() == [True, False, True, True]
    assert decided_share(out) == 0.75  # >= 0.7: the check passes
    strict = planned_vs_decided(tables, target=0.9)
    assert decided_share(strict) == 1.0 and len(strict) == 2
    assert np.isnan(decided_share(planned_vs_decided(tables, target=1.0)))  # nothing planned that high
