"""The LongMemEval stage's BM25 session ranking as LongMemEval's official retrieval log: the JSON lines its
src/retrieval/run_retrieval.py writes (`<prefix>_retrievallog_<granularity>_<retriever>`) and its
src/evaluation/print_retrieval_metrics.py reads, one question a line, so LongMemEval's own scripts (and tailmem's
`audit-log --format longmemeval`) read what this stage retrieved.

Kept as in the official file: question_id, question_type, question, answer, question_date, haystack_dates,
haystack_session_ids and answer_session_ids; retrieval_results with the query, ranked_items (every session, best
first: corpus_id and timestamp) and metrics.session (recall_any@k, recall_all@k, ndcg_any@k at k = 1, 3, 5, 10,
30, 50; turn: {} at session granularity). Corpus ids follow the official rule: an answer session none of whose user
turns holds the answer is renamed `answer` -> `noans`, and the correct items are the ids that still hold `answer`.
Left out: haystack_sessions and each ranked item's text, copies of the dataset (its sha256 is in meta.json).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from tailmem.artifacts import write_text
from tailmem.data.longmemeval import Question, Session
from tailmem.haystack.retrieval import Ranking, official_metrics

RETRIEVAL_DIR = "retrieval"
RETRIEVAL_FILE = "retrievallog_session_bm25.jsonl"  # session granularity, tailmem's BM25 (bm25s)
OFFICIAL_KS = (1, 3, 5, 10, 30, 50)  # the ks run_retrieval.py records


def corpus_id(session: Session) -> str:
    """The session's id as LongMemEval's session-granularity index names it."""
    if "answer" in session.id and not any(t.has_answer for t in session.turns if t.role == "user"):
        return session.id.replace("answer", "noans")
    return session.id


def retrieval_record(question: Question, sessions: Sequence[Session], ranking: Ranking) -> dict:
    """One question's line; `sessions` in the seed's haystack order, `ranking` over them."""
    ids = [corpus_id(s) for s in sessions]
    ranked = [ids[i] for i in ranking.order]
    correct = {c for c in ids if "answer" in c}
    metrics: dict = {}
    for k in OFFICIAL_KS:
        metrics |= official_metrics(ranked, correct, k)
    return {
        "question_id": question.qid,
        "question_type": question.qtype,
        "question": question.question,
        "answer": question.answer,
        "question_date": question.date,
        "haystack_dates": [s.date for s in sessions],
        "haystack_session_ids": [s.id for s in sessions],
        "answer_session_ids": list(question.answer_session_ids),
        "retrieval_results": {
            "query": question.question,
            "ranked_items": [{"corpus_id": ids[i], "timestamp": sessions[i].date} for i in ranking.order],
            "metrics": {"session": metrics, "turn": {}},
        },
    }


def write_retrieval_log(folder: str | Path, records: Sequence[dict]) -> Path:
    """`folder/retrieval/retrievallog_session_bm25.jsonl`, one question a line, in question order."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return write_text(Path(folder) / RETRIEVAL_DIR / RETRIEVAL_FILE, text)
