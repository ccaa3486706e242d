"""Stage model_roles: the probe figures read from the slice's own artifacts, against their floors."""

from __future__ import annotations

from types import SimpleNamespace

from record_kit import placeholder
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild
from tailmem.studies.model_roles.probe import builder_rows, searcher_rows

FLOORS = SimpleNamespace(searcher_looked_up=0.9, searcher_correct=0.2, malformed_per_round=0.2, capped=0.5)


def _build(tmp_path, name, *episodes):
    path = tmp_path / name
    placeholder(FsmemBuild, episodes=list(episodes)).write(path)
    return path


def test_a_builder_reply_cut_off_before_its_call_is_a_failed_round(tmp_path):
    # the smoke slice's finding: the builder's only reply hit the output cap mid-call, the loop refused it as
    # text, and the table said "no items" (0 rounds) instead of the failure it was
    cut = _build(tmp_path, "a.json", {"agent": "qwen", "rounds": 0, "malformed_calls": 0, "refused_answers": 1})
    [row] = builder_rows([cut], FLOORS)
    assert (row["value"], row["items"], row["verdict"]) == (1.0, 1, "below floor")


def test_builder_failures_pool_over_stores_and_skip_programmatic_agents(tmp_path):
    good = _build(tmp_path, "a.json", {"agent": "qwen", "rounds": 9, "malformed_calls": 1, "refused_answers": 0})
    prog = _build(tmp_path, "b.json", {"agent": "programmatic-builder", "rounds": 50, "malformed_calls": 0})
    [row] = builder_rows([good, prog, tmp_path / "missing.json"], FLOORS)
    assert row["items"] == 9 and abs(row["value"] - 1 / 9) < 1e-12 and row["verdict"] == "ok"


def test_searcher_probe_leaves_out_the_variants_without_a_store_to_search(tmp_path):
    rows = [
        {"variant": "verbatim", "search_rounds": 2, "search_looked_up": True, "f1": 0.6},
        {
            "variant": "verbatim",
            "search_rounds": 3,
            "search_looked_up": False,
            "f1": 0.0,
            "search_malformed_calls": 1,
            "search_capped": True,
        },
        {"variant": "closed_book", "search_rounds": 1, "search_looked_up": False, "f1": 0.0},
    ]
    path = tmp_path / "answers.json"
    placeholder(FsmemAnswers, rows=rows).write(path)
    looked, correct, malformed, capped = searcher_rows([path], FLOORS)
    assert (looked["value"], looked["items"], looked["verdict"]) == (0.5, 2, "below floor")
    assert correct["value"] == 0.5 and correct["verdict"] == "ok"
    assert malformed["value"] == 0.2 and malformed["items"] == 5


def test_every_claims_row_names_the_roles_it_rests_on_and_those_below_floor(tmp_path):
    import pandas as pd

    from tailmem.studies.model_roles.probe import claim_rows

    pd.DataFrame(
        {
            "claim": ["random walk favours log-normal", "semantic minus random walk > 0"],
            "verdict": ["HELD", "INCONCLUSIVE"],
        }
    ).to_csv(tmp_path / "claims_random_walk.csv", index=False)
    pd.DataFrame(
        {
            "claim": ["agent_curated beats verbatim", "verbatim beats closed book"],
            "metric": ["judge_correct", "f1"],
            "verdict": ["NOT HELD", "HELD"],
        }
    ).to_csv(tmp_path / "claims_fsmem.csv", index=False)
    pd.DataFrame({"claim": ["x"]}).to_csv(tmp_path / "claims_unknown.csv", index=False)  # not a slice table
    rows = claim_rows(tmp_path, below={"judge", "policy"}).set_index("claim")
    assert rows.loc["random walk favours log-normal", "roles"] == "-"  # no model played the random walk
    assert rows.loc["semantic minus random walk > 0", "roles below floor"] == "policy"
    assert rows.loc["agent_curated beats verbatim", "roles"] == "builder, searcher, judge"
    assert rows.loc["agent_curated beats verbatim", "roles below floor"] == "judge"
    assert rows.loc["verbatim beats closed book", "roles"] == "searcher"  # F1: no judge, no model-built store
    assert "x" not in rows.index
