"""Paper 2's numbers: every one a finite number, the headline figures as the summary prints them, and the row
lookups name columns our study tables have."""

import math

from tailmem.report import paper2_values as paper


def test_every_value_is_a_finite_number():
    values = paper.numbers()
    assert len(values) > 150  # the summary's numbers, not a handful
    for name, value in values:
        assert isinstance(value, (int, float)) and not isinstance(value, bool), name
        assert math.isfinite(value), name


def test_headline_numbers_as_printed():
    assert paper.RQ5_CORRECT_PCT["locomo"] == (86.1, 86.7)  # the harness tie, Table 9
    chain = paper.ALFWORLD_CHAIN
    assert (chain["first_window_pct"], chain["last_window_pct"], chain["window_tasks"]) == (51.4, 91.4, 35)
    assert paper.RQ1_FILES_CONVERSATIONAL == {"gpt-5.4-nano": 122, "gpt-5.4-mini": 2, "gpt-5.4": 105}
    assert list(paper.RQ3_BUILDER_CORRECT_PCT.values()) == [73.8, 66.7, 71.4]
    assert paper.BENCHMARKS["locomo"]["questions"] == 158 and paper.BENCHMARKS["realtalk"]["questions"] == 85
    assert paper.PERSONAMEM_32K_UPGRADE["sign_test_p_one_sided"] == 0.073
    assert paper.ALFWORLD_RETRIEVAL_DOLLARS_140 == {"curated_skills_mem": 2.97, "episode_log": 7.88}
    # the D.1 fractions agree with the counts the summary gives beside them
    pm = paper.PERSONAMEM_32K_CORRECT_PCT
    assert abs(100 * 18 / 32 - pm["agent_curated_gpt-5.4_builder"]) <= 0.05 + 1e-9  # 56.25 printed as 56.3
    assert abs(100 * 12 / 32 - pm["agent_curated"]) <= 0.05 + 1e-9


def test_row_lookups_use_our_column_names_and_fractions():
    assert paper.shape_row("locomo", "agent_curated") == {"files": 3, "sections": 116, "cross-refs": 151}
    assert paper.shape_row("realtalk", "agent_curated") == {} and paper.shape_row("locomo", "verbatim") == {}
    assert paper.retrieval_row("realtalk", "verbatim") == {"n": 85}
    row = paper.strength_row("gpt-5.4-mini", "gpt-5.4")
    assert row == {"store files": 2, "builder judge correct": 0.667, "searcher judge correct": 0.79}
    assert paper.strength_row("programmatic", "programmatic") == {}
    h = paper.harness_row("locomo", "agent_curated", "shell")
    assert h == {
        "judge correct low": 0.861,
        "judge correct high": 0.867,
        "store files": 39,
        "build rounds/chunk": 14.8,
        "build tool calls/chunk": 20.0,
    }
    assert paper.harness_row("locomo", "verbatim", "shell") == {}
