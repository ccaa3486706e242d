"""PersonaMem's questions run side by side with a model searcher: min(concurrency, questions) requests in flight
against the strict test server (200 ms a reply), each question on a harness of its own store that no other
question holds, and the same rows in the same order as one question at a time."""

import json

from test_personamem_stage import _cfg

from llm_testkit import FakeServer
from tailmem.studies.fsmem import personamem as stage


def _rows(results):
    path = results / "fsmem" / "personamem" / "32k" / "verbatim" / "answers" / "center" / "answers.json"
    rows = json.loads(path.read_text())["rows"]
    return [{k: v for k, v in r.items() if "latency" not in k} for r in rows]


def test_questions_run_side_by_side_with_the_rows_of_one_at_a_time(tmp_path, personamem_data, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("TAILMEM_LLM_SLOTS", raising=False)
    runs = {}
    with FakeServer(reasoning=True, reply=lambda body: "(a) [1]") as server:
        for concurrency in (1, 4):
            folder = tmp_path / f"c{concurrency}"
            cfg = _cfg(
                folder,
                personamem_data,
                "fsmem.personamem.tiers=[32k]",
                "fsmem.personamem.variants=[verbatim]",
                "fsmem.rounds.search_other=3",
                "llm=openai",
                f"llm.base_url={server.base_url}",
                f"llm.cache_path={folder}/cache.sqlite",
                f"llm.concurrency={concurrency}",
            )
            server.max_active = 0
            server.latency_s = 0.2 if concurrency > 1 else 0.0  # one at a time needs no slow reply to show it
            stage.run(cfg)
            runs[concurrency] = (server.max_active, _rows(folder / "results"))
    (flight1, rows1), (flight, rows) = runs[1], runs[4]
    assert len(rows) == 7 and all(r["searcher"] == "gpt-5.4-mini" for r in rows)
    assert flight1 == 1 and flight >= 4
    assert rows == rows1
