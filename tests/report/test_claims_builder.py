"""The one claims builder: rows in the spec's order, fixed columns, combined rows from their parts' verdicts."""

from __future__ import annotations

import pytest

from tailmem.report.claims import ALL_PARTS, EVERY_ROW_BEFORE, Claim, build, evidence
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD
from tailmem.studies.controller import claim_specs as controller_claims
from tailmem.studies.longmemeval import claim_specs as longmemeval_claims
from tailmem.studies.random_walk import claim_specs as random_walk_claims


def _verdicts(by_metric: dict[str, str]):
    def compare(c: Claim) -> dict:
        return {"unit": "seed", "side": "> 0", "verdict": by_metric[c.metric], "reason": "", "evidence": c.metric}

    return compare


def test_rows_follow_the_spec_and_a_combined_row_reads_its_parts():
    spec = (
        Claim("x rises", metric="x", key="x"),
        Claim("y rises", metric="y", key="y"),
        Claim("both rise", parts=("x", "y"), evidence="combines the two rows above"),
    )
    df = build([c.at(scope="A") for c in spec], _verdicts({"x": HELD, "y": INCONCLUSIVE}))
    assert list(df.columns) == ["claim", "scope", "unit", "side", "verdict", "planned_power", "reason", "evidence"]
    assert list(df.claim) == ["x rises", "y rises", "both rise"]
    last = df.iloc[-1]
    assert (last.side, last.verdict, last.reason, last.unit) == (
        ALL_PARTS,
        INCONCLUSIVE,
        "1 of 2 parts INCONCLUSIVE",
        "",
    )
    assert last.evidence == "combines the two rows above"
    assert build(spec, _verdicts({"x": NOT_HELD, "y": HELD})).verdict.iloc[-1] == NOT_HELD


def test_a_part_must_come_before_the_row_that_combines_it():
    spec = (Claim("both", parts=("x",)), Claim("x", metric="x", key="x"))
    with pytest.raises(KeyError, match="parts"):
        build(spec, _verdicts({"x": HELD}))


def test_a_claim_names_a_known_side_and_a_combined_one_compares_nothing():
    with pytest.raises(ValueError, match="side"):
        Claim("x", metric="x", side="more")
    with pytest.raises(ValueError, match="compares nothing"):
        Claim("x", metric="x", parts=("y",))


def test_evidence_is_filled_then_the_paper_value_follows():
    c = Claim("x", metric="x", evidence="ours {a:.2f}", paper="paper: 0.93")
    assert evidence(c, a=0.912) == "ours 0.91; paper: 0.93"
    assert Claim("{policy} wins").filled(policy="semantic").words == "semantic wins"


SPECS = {
    "CTMC": controller_claims.CTMC,
    "RANDOM_WALK_SIZE": random_walk_claims.RANDOM_WALK_SIZE,
    "RANDOM_WALK_DESIGNS": random_walk_claims.RANDOM_WALK_DESIGNS,
    "RANDOM_WALK_TAIL_SHAPE": random_walk_claims.RANDOM_WALK_TAIL_SHAPE,
    "LONGMEMEVAL": longmemeval_claims.LONGMEMEVAL,
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_study_spec_is_well_formed(name):
    spec = SPECS[name]
    keys = [c.key for c in spec if c.key]
    assert len(keys) == len(set(keys)), "a key names one row"
    seen = set()
    for c in spec:
        assert set(c.parts) <= seen, f"{c.words}: its parts come before it"
        seen.add(c.key)
        if not c.combined:
            assert c.metric, f"{c.words}: a compared claim names its metric"


def test_every_row_before_combines_however_many_rows_a_run_holds():
    pairs = [Claim(f"pair {k}", metric=k) for k in ("x", "y", "z")]
    spec = [*pairs, Claim("every pair", parts=(EVERY_ROW_BEFORE,))]
    df = build(spec, _verdicts({"x": HELD, "y": HELD, "z": NOT_HELD}))
    assert (df.verdict.iloc[-1], df.reason.iloc[-1]) == (NOT_HELD, "1 of 3 parts NOT HELD")
