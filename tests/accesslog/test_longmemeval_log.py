"""The LongMemEval importer audits a retrieval log made by tailmem's own LongMemEval stage, in LongMemEval's
official retrieval-log format (run_retrieval.py's lines: question_id, retrieval_results.ranked_items[].corpus_id)."""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest

from tailmem.cli import main

pytestmark = pytest.mark.slow


def test_audit_of_our_stage_retrieval_log(tmp_path, data_dir):
    common = ["scale=smoke", f"results_dir={tmp_path}/results", f"data_dir={data_dir}", "longmemeval.max_per_type=1"]
    assert main(["longmemeval", *common, "longmemeval.dataset=oracle", "seed=0"]) == 0
    run = tmp_path / "results/longmemeval/oracle/programmatic/seed0"
    log = run / "retrieval" / "retrievallog_session_bm25.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    rows = pd.read_parquet(run / "rows.parquet")
    gm = rows[rows.arm == "graph_memory"].set_index("qid")
    assert [x["question_id"] for x in lines] == list(gm.index)
    for x in lines:
        ranked = x["retrieval_results"]["ranked_items"]
        assert sorted(r["corpus_id"].replace("noans", "answer") for r in ranked) == sorted(x["haystack_session_ids"])
        m = x["retrieval_results"]["metrics"]["session"]
        # the metrics print_retrieval_metrics.py reads, and the stage's own official columns agree
        for k in (1, 3, 5, 10):
            assert m[f"recall_any@{k}"] == gm.loc[x["question_id"], f"recall_any@{k}"]
            assert m[f"ndcg_any@{k}"] == pytest.approx(gm.loc[x["question_id"], f"ndcg_any@{k}"])
        assert set(m) >= {"recall_all@5", "ndcg_any@5", "recall_all@10", "ndcg_any@10"}
    out = tmp_path / "audit"
    assert (
        main(
            [
                "audit-log",
                str(log),
                "--format",
                "longmemeval",
                "--top-k",
                "2",
                "--out",
                str(out),
                f"results_dir={tmp_path}/results",
                "audit.bootstrap=0",
            ]
        )
        == 0
    )
    audit = json.loads((out / "audit.json").read_text())
    expected = Counter(r["corpus_id"] for x in lines for r in x["retrieval_results"]["ranked_items"][:2])
    every = {r["corpus_id"] for x in lines for r in x["retrieval_results"]["ranked_items"]}
    assert audit["counts"] == {"n_items": len(every), "total": sum(expected.values()), "nonzero": len(expected)}
    assert audit["log"]["episodes"] == len(lines) and audit["log"]["format"] == "longmemeval"
    assert audit["tail"]["status"] in ("degenerate", "tail_too_small") and audit["tail"]["why_no_fit"]
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    assert Counter(e["item"] for e in events) == expected and {e["source"] for e in events} == {"retrieval@2"}
