"""Stage `longmemeval` (one dataset, one seed: every question under every arm); its report is
`studies/longmemeval/report.py`.

Artifacts: {results}/longmemeval/<dataset>/<agent>/seed<seed>/{rows.parquet, summary.json, hypotheses/<arm>.jsonl,
retrieval/retrievallog_session_bm25.jsonl (LongMemEval's official retrieval log: tailmem.exports.longmemeval_retrieval)} (summary written last, so a
killed run leaves nothing that looks complete).
"""

from __future__ import annotations

import logging

import pandas as pd

from tailmem.exports.longmemeval import write_hypotheses
from tailmem.exports.longmemeval_retrieval import retrieval_record, write_retrieval_log
from tailmem.haystack.answer import ModelAnswerer, ProgrammaticAnswerer
from tailmem.haystack.arms import NO_EVIDENCE, make_arms
from tailmem.haystack.rows import ROWS_FILE, run_dir
from tailmem.memory.tokens import TokenCounter
from tailmem.paths import out_dir
from tailmem.provenance import save_provenance
from tailmem.records.longmemeval import ArmStats, ContextCheck, LongMemEvalRows, LongMemEvalSummary
from tailmem.roles import JUDGE, SEARCHER, plays_model
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.studies.longmemeval.evaluate import build_prompts, build_without_evidence, evaluate_programmatic, score
from tailmem.studies.longmemeval.questions import asked, context_checked

log = logging.getLogger(__name__)
SUMMARY_FILE = "summary.json"


@typed_stage("longmemeval")
def run(cfg: StageSettings) -> None:
    from tailmem.llm import get_client
    from tailmem.llm.parallel import in_process

    lme = cfg.longmemeval
    seed = int(cfg.seed)
    dataset, questions = asked(cfg.longmemeval)
    arms = make_arms(lme)
    counter = TokenCounter(encoding=cfg.llm.encoding)
    searcher = get_client(cfg, SEARCHER, stage="longmemeval")
    model = ModelAnswerer(searcher, seed) if plays_model(searcher) else None
    programmatic = ProgrammaticAnswerer(float(lme.min_overlap))
    turn_words = lme.turn_words
    turn_words = None if turn_words is None else int(turn_words)
    graph = next((a for a in arms if a.name == "graph_memory"), None)
    checked = context_checked(questions, lme.context_check) if graph is not None else set()
    rows, retrieval, pending = [], [], []
    for q in questions:
        built = build_prompts(q, arms, seed, int(lme.candidates), list(lme.recall_ks), counter, turn_words)
        retrieval.append(retrieval_record(q, built[0].haystack, built[0].ranking))
        if q.qid in checked:
            built.append(
                build_without_evidence(q, graph, seed, int(lme.candidates), list(lme.recall_ks), counter, turn_words)
            )
        if model is None:
            rows.extend(evaluate_programmatic(q, built, programmatic))
        else:
            pending.append((q, built, [model.request(b.memory, q.question, q.date) for b in built]))
    if model is not None:
        # an in-process model: one question's arms together, their prompts share a prefix it reuses; an endpoint:
        # every question's answers together, `llm.concurrency` in flight (the questions do not depend on each other)
        batches = [r for _, _, r in pending] if in_process(searcher) else [[x for _, _, r in pending for x in r]]
        answers = iter([a for batch in batches for a in model.answer_many(batch)])
        for q, built, _ in pending:
            rows.extend(score(q, b.row, a.text, a.agent, **a.accounting()) for b, a in zip(built, answers))
    judge_client = _judge(cfg, questions, rows) if lme.judge else None
    judge_label = None if judge_client is None else f"{judge_client.backend}:{judge_client.model}"
    df = pd.DataFrame(rows)
    df["dataset"] = dataset
    out = out_dir(cfg, run_dir(cfg.composed, dataset, seed))
    LongMemEvalRows(df).write(out / ROWS_FILE)
    write_hypotheses(
        out, df[df.arm != NO_EVIDENCE]
    )  # hypotheses/<arm>.jsonl, the file LongMemEval's evaluate_qa.py reads
    write_retrieval_log(out, retrieval)  # retrieval/retrievallog_session_bm25.jsonl, LongMemEval's retrieval log format
    agent = model.name if model else programmatic.name
    save_provenance(
        out,
        cfg,
        data_files=[lme.files[dataset]],
        agent=agent,
        model=None if model is None else model.name,
        judge=judge_label,
    )
    summary = LongMemEvalSummary(
        dataset=dataset,
        seed=seed,
        questions=len(questions),
        answerer=agent,
        judge=judge_label,
        arms={
            a.name: ArmStats(
                prompt_tokens=float(df[df.arm == a.name].prompt_tokens.mean()),
                accuracy=float(df[df.arm == a.name].correct.mean()),
                coverage=float(df[df.arm == a.name].coverage.mean()),
            )
            for a in arms
        },
        context_check=ContextCheck(
            questions=len(checked),
            accuracy_without_evidence=float(df[df.arm == NO_EVIDENCE].correct.mean()) if checked else None,
        ),
        model=None if model is None else model_accounting(df, searcher, judge_client),
    )
    summary.write(out / SUMMARY_FILE)
    for name, s in summary.arms.items():
        log.info(
            "%s seed %d %s: %.0f tokens/query, accuracy %.3f, coverage %.3f",
            dataset,
            seed,
            name,
            s.prompt_tokens,
            s.accuracy,
            s.coverage,
        )


def model_accounting(df: pd.DataFrame, searcher, judge) -> dict:
    """What the model run cost: seconds per question and arm (answers), per judge call, and the prompt tokens an
    in-process model was sent against those it evaluated (the rest came from the KV prefix of the previous call).
    Seconds are the calls' latencies, the recorded ones when the call cache answered (`answers_from_cache`)."""
    out: dict = {"answer_seconds_per_arm": {}, "answers_from_cache": 0}
    if "answer_seconds" in df:
        out["answer_seconds_per_arm"] = {
            str(a): float(g.answer_seconds.mean()) for a, g in df.groupby("arm", sort=False)
        }
        out["answer_seconds_per_question"] = float(df.groupby("qid").answer_seconds.sum().mean())
        out["answers_from_cache"] = int(df.answer_from_cache.fillna(False).astype(bool).sum())
        out["answer_completion_tokens"] = float(df.answer_completion_tokens.mean())
    if "judge_seconds" in df and df.judge_seconds.notna().any():
        out["judge_seconds_per_call"] = float(df.judge_seconds.mean())
    for role, client in ((SEARCHER, searcher), (JUDGE, judge)):
        impl = getattr(client, "_impl", None)
        if impl is not None and hasattr(impl, "evaluated"):  # in process: this role's calls paid in this run
            out.setdefault("backend", {})[role] = {
                "sent_tokens": int(impl.sent_tokens),
                "evaluated_tokens": int(impl.evaluated),
                "seconds_in_model": round(float(impl.seconds_in_model), 3),
            }
    return out


def _judge(cfg: StageSettings, questions, rows: list[dict]):
    """Add `judge_correct` (LongMemEval's reading, 1/0), `judge_correct_ours` (1/0, None when unparsed), the reply
    and the call's seconds to every row when a judge model is configured; returns the judge's client (None
    offline)."""
    from tailmem.haystack.judge import judge_many
    from tailmem.llm import get_client

    client = get_client(cfg, JUDGE, stage="longmemeval")
    if not plays_model(client):
        for r in rows:
            r.update(judge_correct=None, judge_correct_ours=None, judge_reply=None)
        return None
    by_id = {q.qid: q for q in questions}
    verdicts = judge_many(client, [by_id[r["qid"]] for r in rows], [r["answer"] for r in rows])
    for r, v in zip(rows, verdicts):  # official reading by default; ours (None = unparsed) kept beside it
        r.update(
            judge_correct=float(v.official),
            judge_correct_ours=None if v.ours is None else float(v.ours),
            judge_reply=v.reply,
            judge_seconds=v.seconds,
        )
    return client
