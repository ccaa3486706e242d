"""Issue 14: what paper 2's run settings did (answers without a tool call, compactions, outputs cut at the safety
cap) is counted per table row, for the LoCoMo table, the study tables and PersonaMem alike."""

import math

from tailmem.fsmem.agents.accounting import RUN_SETTING_COLUMNS, Episode, run_setting_counts


def _episode(**kw) -> dict:
    base = dict(
        role="searcher",
        agent="m",
        rounds=1,
        tool_calls=0,
        tool_errors=0,
        prompt_tokens=0,
        cached_tokens=0,
        completion_tokens=0,
        chars_read=0,
        capped=False,
        latency_s=0.0,
    )
    return Episode(**(base | kw)).to_json()


def test_search_rows_and_build_episodes_are_summed_per_setting():
    rows = [
        {f"search_{k}": v for k, v in _episode(compactions=2, truncations=1, no_tool_call=True).items()},
        {f"search_{k}": v for k, v in _episode(compactions=0, truncations=3).items()},
    ]
    build = [_episode(role="builder", compactions=1), _episode(role="builder", truncations=4)]
    assert run_setting_counts(rows, build) == {
        "no tool call": 1,
        "no lookup": 0,
        "malformed calls": 0,
        "capped": 0,
        "no answer": 0,
        "compactions": 3,
        "truncations": 8,
        "context overflows": 0,
    }


def test_the_loop_protocol_counts_are_summed_too():
    rows = [
        {
            f"search_{k}": v
            for k, v in _episode(looked_up=False, no_lookup=True, capped=True, malformed_calls=2).items()
        },
        {f"search_{k}": v for k, v in _episode(looked_up=True, no_answer=True, malformed_calls=1).items()},
    ]
    build = [_episode(role="builder", capped=True, malformed_calls=3)]
    counts = run_setting_counts(rows, build)
    assert (counts["no lookup"], counts["malformed calls"], counts["capped"], counts["no answer"]) == (1, 6, 2, 1)


def test_rows_written_before_the_fields_existed_count_zero_not_an_error():
    rows = [{"search_tool_calls": 3}, {"search_compactions": math.nan, "search_no_tool_call": None}]
    assert run_setting_counts(rows) == {label: 0 for label, _ in RUN_SETTING_COLUMNS}
