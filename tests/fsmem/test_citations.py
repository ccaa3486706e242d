"""Issue 28 (bad input and faults): a search agent's citations are checked against the store it answered from. A
model cited paths that do not exist (`/store/Calvin/Travel/Tokyo_1987.md#1`) and they were treated like citations:
the judge was shown the file of a line that does not exist, and no record or table said anything was wrong."""

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.fsmem.agents import searcher
from tailmem.fsmem.agents.judge import cited_text
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.management import management
from tailmem.paths import ANSWERS_FILE
from tailmem.records.fsmem import FsmemAnswers
from tailmem.studies.fsmem import locomo
from tailmem.studies.fsmem import report as fsmem_study

HALLUCINATED = "/store/Calvin/Travel/Tokyo_1987.md#1"
NOTES = "# Calvin\n## 25 May, 2023 (session 3)\n- [D3:1] Calvin: I bought a Ferrari.\n"  # lines 4-6 of the file


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "store")
    assert management(s).call("create", {"path": "people/calvin.md", "description": "Calvin", "content": NOTES}).ok
    return s


def test_each_citation_is_valid_only_if_its_file_and_anchor_exist(store):
    from tailmem.fsmem.agents.searcher import check_citations

    cases = {
        HALLUCINATED: False,  # no such file
        "people/calvin.md:6 [D3:1]": True,  # the programmatic searcher's form
        "people/calvin.md:5-6": True,
        "people/calvin.md:99 [D3:1]": False,  # the file has 6 lines
        "people/calvin.md#25 May, 2023 (session 3) [D3:1]": True,  # the search prompt's path#heading
        "people/calvin.md#25-may-2023-session-3": True,  # a markdown anchor of that heading
        "people/calvin.md#1 June, 2023": False,  # no such section
        "people/calvin.md#2": True,
        "people/calvin.md#3": False,  # the n-th section (two headings)
        "/memory/people/calvin.md:6": True,  # the Shell harness's mount point
        "`people/calvin.md`": True,  # no anchor: the file is enough
        "people/dave.md:1": False,
        "people/": False,
        "[D3:1]": False,
        "../secret.md": False,
    }
    checks = check_citations(store, tuple(cases))
    assert [c.text for c in checks] == list(cases)
    assert {c.text: c.valid for c in checks} == cases
    assert all(c.problem for c in checks if not c.valid) and all(c.problem is None for c in checks if c.valid)


def test_the_judge_is_never_shown_an_invalid_citation_as_cited_text(store):
    bad = cited_text(store, (HALLUCINATED, "people/calvin.md:99"))
    assert "Ferrari" not in bad and bad.count("not found in the store") == 2
    good = cited_text(store, ("people/calvin.md#25 May, 2023 (session 3) [D3:1]",))
    assert "Ferrari" in good and "not found" not in good


def test_a_closed_book_none_is_no_citation():
    assert searcher.parse_reply("ANSWER: I do not know\nCITATIONS: none") == ("I do not know", ())


def test_table_counts_are_unknown_for_rows_never_checked():
    from tailmem.fsmem.agents.searcher import invalid_citation_count

    assert invalid_citation_count([{"invalid_citations": 1}, {"invalid_citations": 0}]) == 1
    assert invalid_citation_count([]) == 0
    assert pd.isna(invalid_citation_count([{"invalid_citations": 1}, {"citations": ["a.md"]}]))  # not 0: unchecked


def _cfg(tmp_path, data_dir, variant):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        over = [
            f"results_dir={tmp_path}",
            f"data_dir={data_dir}",
            f"fsmem.variant={variant}",
            "fsmem.max_questions=4",
            "fsmem.variants=[chunk_retrieval,verbatim]",
            "stage=fsmem_table",
        ]
        return compose(config_name="config", overrides=over)


def _rows(cfg):
    (path,) = locomo.variant_dir(cfg).glob(f"answers/center/**/{ANSWERS_FILE}")
    return FsmemAnswers.read(path).rows


def test_answers_and_tables_count_invalid_citations(tmp_path, data_dir, monkeypatch):
    for v in ("chunk_retrieval", "verbatim"):
        locomo.build(_cfg(tmp_path, data_dir, v))
        locomo.answer(_cfg(tmp_path, data_dir, v))
        rows = _rows(_cfg(tmp_path, data_dir, v))
        assert any(r["citations"] for r in rows)
        assert [r["invalid_citations"] for r in rows] == [0] * len(rows), v  # the programmatic searcher's are real
        store = Store(locomo.variant_dir(_cfg(tmp_path, data_dir, v)) / "store")
        for where, _, locator in (c.partition(" ") for r in rows for c in r["citations"]):
            path, _, line = where.partition(":")  # a cited line holds its locator (a chunk is cited by file)
            assert locator in (store.read(path).splitlines()[int(line) - 1] if line else store.read(path)), where

    honest = searcher.answer_programmatic

    def hallucinating(question, harness):
        a = honest(question, harness)
        return searcher.Answer(a.text, (*a.citations, HALLUCINATED), a.raw, a.episode)

    monkeypatch.setattr(searcher, "answer_programmatic", hallucinating)
    locomo.answer(_cfg(tmp_path, data_dir, "verbatim"))
    rows = _rows(_cfg(tmp_path, data_dir, "verbatim"))
    assert [r["invalid_citations"] for r in rows] == [1] * 4
    locomo.table(_cfg(tmp_path, data_dir, "verbatim"))
    df = pd.read_csv(tmp_path / "tables/locomo_conv-50.csv").set_index("variant")
    assert df.loc["verbatim", "invalid citations"] == 4 and df.loc["chunk_retrieval", "invalid citations"] == 0
    assert "`invalid citations`" in (tmp_path / "tables/locomo_conv-50.md").read_text()
    cost = fsmem_study._search_cost(pd.DataFrame(rows))  # the study tables' run-setting columns (RQ2, RQ3, RQ5)
    assert cost["invalid citations"] == 4 and list(cost).index("invalid citations") > list(cost).index("no tool call")
