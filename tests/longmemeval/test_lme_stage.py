"""Stages `longmemeval` and `longmemeval_report` end to end on a few oracle questions, offline and with the
loopback server playing the answering model and the judge."""

import json

import pandas as pd
import pytest

from llm_testkit import FakeServer
from tailmem.cli import main
from tailmem.haystack.arms import NO_EVIDENCE
from tailmem.records.longmemeval import LongMemEvalSummary


def common(tmp_path, data_dir):
    return [
        "scale=smoke",
        f"results_dir={tmp_path}/results",
        f"figures_dir={tmp_path}/figures",
        f"data_dir={data_dir}",
        "longmemeval.max_per_type=1",
        "longmemeval.datasets=[oracle]",
        "longmemeval.seeds=[0,1]",
    ]


@pytest.mark.slow
def test_offline_stage_and_report(tmp_path, data_dir):
    args = common(tmp_path, data_dir)
    for seed in (0, 1):
        assert main(["longmemeval", *args, "longmemeval.dataset=oracle", f"seed={seed}"]) == 0
    run = tmp_path / "results/longmemeval/oracle/programmatic/seed0"
    every = pd.read_parquet(run / "rows.parquet")
    # issue 29: the context check answers the questions with evidence again, their answer-bearing turns removed
    check, rows = every[every.arm == NO_EVIDENCE], every[every.arm != NO_EVIDENCE]
    assert 0 < len(check) <= 6 and check.coverage.isna().all() and set(check.qid) <= set(rows.qid)
    ctmc = {f"ctmc-r{r}" for r in ("1", "0.9", "0.8", "0.75", "0.7", "0.6", "0.5", "0.4", "0.3", "0.2", "0.1")}
    assert len(rows) == 6 * 14 and set(every.answerer) == {"programmatic-answerer"}  # the default sweep, to 0.1
    assert set(rows.arm) == {"graph_memory", *ctmc, "full_history", "flat_retrieval"}
    gm = rows[rows.arm == "graph_memory"].set_index("qid")
    half = rows[rows.arm == "ctmc-r0.5"].set_index("qid")
    assert (half.memory_tokens <= 0.5 * gm.memory_tokens + 1).all()  # CTMC spends its share of Graph Memory's tokens
    assert rows.coverage.between(0, 1).all() and rows["recall@10"].eq(1.0).all()  # oracle: evidence sessions only
    assert LongMemEvalSummary.read(run / "summary.json").questions == 6
    # issue 16 finding 4: one hypotheses file per arm and seed, the shape LongMemEval's evaluate_qa.py reads
    for arm in set(rows.arm):
        lines = [json.loads(x) for x in (run / "hypotheses" / f"{arm}.jsonl").read_text().splitlines()]
        assert [set(x) for x in lines] == [{"question_id", "hypothesis"}] * 6
        assert {x["question_id"] for x in lines} == set(rows.qid)
    # official retrieval metrics beside ours, with the official question filter
    assert {"recall_any@1", "recall_all@1", "ndcg_any@1", "retrieval_scored"} <= set(rows.columns)
    assert main(["longmemeval_report", *args]) == 0
    tables = tmp_path / "results/tables"
    for stem in (
        "longmemeval_by_type",
        "longmemeval_summary",
        "longmemeval_ctmc_vs_graph",
        "longmemeval_reduction",
        "claims_longmemeval",
    ):
        assert (tables / f"{stem}.csv").exists() and (tables / f"{stem}.md").exists()
    cmp = pd.read_csv(tables / "longmemeval_ctmc_vs_graph.csv")
    assert set(cmp.arm) == ctmc and (cmp.token_reduction_pct_paper == 24.48).all()
    red = pd.read_csv(tables / "longmemeval_reduction.csv")  # issue 15 finding 3: one measured arm at most
    assert set(red.arm) == ctmc and red.measured.sum() <= 1 and red.seeds.eq(2).all()
    assert "±" in (tables / "longmemeval_summary.md").read_text()  # two seeds: mean ± sd
    summary = pd.read_csv(tables / "longmemeval_summary.csv")
    assert {"recall_any@1", "recall_all@1", "ndcg_any@1", "ours_recall@1", "retrieval_questions"} <= set(
        summary.columns
    )
    assert (tmp_path / "figures/fig8_longmemeval.png").exists() and (tmp_path / "figures/fig8_longmemeval.pdf").exists()


def test_report_names_a_missing_run(tmp_path, data_dir):
    assert main(["longmemeval_report", *common(tmp_path, data_dir)]) == 1


def test_model_answers_and_judge_through_the_loopback_server(tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")

    def reply(body):
        text = body["messages"][0]["content"]
        return "**Yes**" if "yes or no" in text else "It was not mentioned."

    with FakeServer(reply=reply, latency_s=0.2) as server:  # 200 ms a reply: the calls overlap or the test fails
        args = [
            *common(tmp_path, data_dir),
            "longmemeval.dataset=oracle",
            "seed=0",
            "llm=openai",
            f"llm.base_url={server.base_url}",
            f"llm.cache_path={tmp_path}/llm_cache.sqlite",
            "llm.retries=1",
            "longmemeval.ctmc_ratios=[1.0,0.75,0.5]",
        ]  # three budgets: few enough repeated prompts for the count below
        assert main(["longmemeval", *args]) == 0
    # the run's folder names the model that answered and judged (issue 12: no two models share a path)
    rows = pd.read_parquet(tmp_path / "results/longmemeval/oracle/gpt-5.4-mini/seed0/rows.parquet")
    # one answer and one verdict per (question, arm), less the repeats the call cache answers (same prompt)
    assert len(rows) < server.requests <= 2 * len(rows)
    # the answers, then the verdicts, each sent together: the larger batch holds concurrency (8) calls in flight
    assert server.max_active >= min(8, server.requests // 2), (server.max_active, server.requests)
    assert set(rows.answerer) == {"openai:gpt-5.4-mini"} and rows.judge_correct.eq(1.0).all()
    assert rows.judge_correct_ours.eq(1.0).all() and rows.judge_reply.eq("**Yes**").all()  # both readings kept
    assert rows.abstained.all()
