"""The per-variant summaries of LoCoMo and PersonaMem on two hand-made answer rows: each column, its value and its place
(a table's columns come out in the summary's order), and the search costs per question counted the same way in both."""

from __future__ import annotations

import math

from record_kit import placeholder
from tailmem.fsmem.agents.accounting import RUN_SETTING_COLUMNS
from tailmem.metrics.answer_length import COLUMN as ANSWER_TOKENS
from tailmem.records.fsmem import FsmemBuild, PersonaMemBuild
from tailmem.studies.fsmem import locomo, personamem

SEARCH = {  # two questions: calls 2 and 4, rounds 1 and 3, ... -> means 3, 2, 200 chars, 2 cents, 26 tokens
    "search_tool_calls": (2, 4),
    "search_rounds": (1, 3),
    "search_chars_read": (100, 300),
    "search_dollars": (0.01, 0.03),
    "search_prompt_tokens": (10, 30),
    "search_completion_tokens": (5, 7),
}
COSTS = {"tool calls/q": 3.0, "rounds/q": 2.0, "chars read/q": 200.0, "cents/q": 2.0, "tokens/q": 26.0}
RUN_SETTINGS = [label for label, _ in RUN_SETTING_COLUMNS]
EPISODE = {"no_tool_call": 1, "compactions": 0, "truncations": 2}  # a build episode: counted with the search's


def _search(k: int) -> dict:
    return {col: values[k] for col, values in SEARCH.items()} | {"invalid_citations": k}


def _close(got: dict, want: dict) -> None:
    for key, value in want.items():
        assert math.isclose(got[key], value), (key, got[key], value)


def test_locomo_summary_columns_and_costs():
    rows = [
        _search(k)
        | {
            "category": k + 1,
            "f1": 0.5 * k,
            "answer": "Tokyo in March",
            "searcher": "programmatic-searcher",
            "judge": None,
            "judge_correct": None,
            "judge_citation": None,
        }
        for k in range(2)
    ]
    built = placeholder(
        FsmemBuild,
        variant="verbatim",
        agent="programmatic-builder",
        store={"files": 3, "sections": 5, "bytes": 700},
        episodes=[EPISODE],
        tool_calls=9,
        tokens=11,
        dollars=0.5,
    )
    got = locomo.summarize(rows, built)
    names = [f"F1 {c} {n}" for c, n in {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}.items()]
    assert list(got) == [
        "variant",
        "searcher",
        "builder",
        "n",
        "F1",
        *names,
        *COSTS,
        ANSWER_TOKENS,
        *RUN_SETTINGS,
        "invalid citations",
        "build tool calls",
        "build tokens",
        "build dollars",
        "store files",
        "store sections",
        "store bytes",
    ]
    _close(got, COSTS | {"F1": 0.25, names[0]: 0.0, names[1]: 0.5, "invalid citations": 1})
    assert math.isnan(got[names[2]]) and math.isnan(got[names[3]])
    assert (got["no tool call"], got["compactions"], got["truncations"]) == (1, 0, 2)
    assert (got["build tool calls"], got["store bytes"], got["n"]) == (9, 700, 2)


def test_personamem_summary_columns_and_costs():
    rows = [
        _search(k)
        | {
            "question_type": "recall" if k else "suggest",
            "correct": bool(k),
            "reply": "(a)",
            "harness": "center",
        }
        for k in range(2)
    ]
    builds = [
        placeholder(
            PersonaMemBuild,
            stores={"10": {"files": 2, "sections": 4, "bytes": 100}, "20": {"files": 4, "sections": 6, "bytes": 300}},
            episodes=[EPISODE],
            tool_calls=9,
            tokens=11,
            dollars=0.5,
        )
    ]
    labels = {"harness": "none", "build harness": "center", "searcher": "s", "builder": "b"}
    got = personamem.summarize("32k", "verbatim", 5, rows, builds, labels)
    assert list(got) == [
        "tier",
        "variant",
        "status",
        "questions",
        "answered",
        "contexts",
        "stores",
        "accuracy",
        ANSWER_TOKENS,
        "acc recall",
        "acc suggest",
        *COSTS,
        "store files",
        "store sections",
        "store bytes",
        "build tool calls",
        "build tokens",
        "build dollars",
        *RUN_SETTINGS,
        "invalid citations",
        "harness",
        "build harness",
        "searcher",
        "builder",
    ]
    _close(got, COSTS | {"accuracy": 0.5, "acc recall": 1.0, "acc suggest": 0.0, "store files": 3.0})
    assert (got["stores"], got["questions"], got["answered"], got["harness"]) == (2, 5, 2, "center")
    assert (got["no tool call"], got["compactions"], got["truncations"]) == (1, 0, 2)


def test_no_rows_no_costs():
    """A variant with no answered question has no cost per question (NaN, not 0), in both summaries."""
    built = placeholder(FsmemBuild, store={"files": 0, "sections": 0, "bytes": 0}, episodes=[])
    for got in (
        locomo.summarize([], built),
        personamem.summarize("32k", "verbatim", 0, [], [], {"harness": "none"}),
    ):
        assert all(math.isnan(got[k]) for k in COSTS), got
