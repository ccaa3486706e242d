"""BM25 over one question's haystack: which sessions are candidates, and which turns of a session matter most;
and how good the session ranking is, by LongMemEval's own retrieval metrics and by ours.

Sessions are ranked by BM25 over their whole text (the candidate list Graph Memory and CTMC spend a budget on);
turns are scored by a second BM25 index over single turns, so an item can list its most relevant turns first
and a controller that keeps only some of a session's facts keeps the ones the question is about.
Ties keep the order the sessions were given in (the seed's haystack order).

LongMemEval's retrieval metrics (src/retrieval/eval_utils.py and run_retrieval.py, session granularity): a session
is correct when it is an answer session and one of its *user* turns is marked `has_answer`; recall_any@k is 1 when
any correct session is in the top k, recall_all@k when all are; ndcg_any@k is DCG@k / ideal DCG@k with binary
relevance and LongMemEval's discount (the first two ranks weigh 1, rank i >= 2 weighs 1/log2(i)). They are averaged
only over questions that are not abstention questions and have a user turn marked `has_answer`
(`official_retrieval_question`). Ours, `recall_at_k`, is the fraction of answer sessions in the top k over every
question: a labelled extra.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from tailmem.data.longmemeval import Session

logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at debug level


def _index(texts: Sequence[str]) -> bm25s.BM25:
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
    return retriever


def _scores(retriever: bm25s.BM25, query: str, n: int) -> np.ndarray:
    tokens = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
    return np.asarray(retriever.get_scores(tokens), dtype=float) if tokens else np.zeros(n)


@dataclass(frozen=True)
class Ranking:
    """Session positions best first, each session's BM25 score, and each turn's (per session, in turn order)."""

    order: tuple[int, ...]
    session_scores: tuple[float, ...]
    turn_scores: tuple[tuple[float, ...], ...]


def rank(sessions: Sequence[Session], query: str) -> Ranking:
    """Rank a haystack's sessions and score its turns against `query` (one index each, built per question)."""
    if not sessions:
        return Ranking((), (), ())
    session_scores = _scores(
        _index([" ".join(t.content for t in s.turns) or " " for s in sessions]), query, len(sessions)
    )
    flat = [t.content or " " for s in sessions for t in s.turns]
    flat_scores = _scores(_index(flat), query, len(flat)) if flat else np.zeros(0)
    turn_scores, start = [], 0
    for s in sessions:
        turn_scores.append(tuple(float(x) for x in flat_scores[start : start + len(s.turns)]))
        start += len(s.turns)
    order = tuple(int(i) for i in np.argsort(-session_scores, kind="stable"))
    return Ranking(order, tuple(float(x) for x in session_scores), tuple(turn_scores))


def correct_sessions(sessions: Sequence[Session], answer_ids: Sequence[str]) -> set[str]:
    """Answer sessions with a user turn marked has_answer (LongMemEval renames the others to 'noans')."""
    answers = set(answer_ids)
    return {s.id for s in sessions if s.id in answers and any(t.has_answer for t in s.turns if t.role == "user")}


def official_retrieval_question(qid: str, sessions: Sequence[Session]) -> bool:
    """LongMemEval's filter for averaging retrieval metrics: not an abstention question, and some user turn holds
    the answer."""
    return "_abs" not in qid and any(t.has_answer for s in sessions for t in s.turns if t.role == "user")


def _dcg(relevances: Sequence[float], k: int) -> float:
    rel = list(relevances)[:k]
    return sum(r if i < 2 else r / math.log2(i) for i, r in enumerate(rel, start=1)) if rel else 0.0


def official_metrics(ranked_ids: Sequence[str], correct: set[str], k: int) -> dict[str, float]:
    """recall_any@k, recall_all@k and ndcg_any@k of one ranking of every haystack session."""
    top = set(ranked_ids[:k])
    relevance = [1.0 if sid in correct else 0.0 for sid in ranked_ids]
    ideal = _dcg(sorted(relevance, reverse=True), k)
    return {
        f"recall_any@{k}": float(any(c in top for c in correct)),
        f"recall_all@{k}": float(all(c in top for c in correct)),
        f"ndcg_any@{k}": _dcg(relevance, k) / ideal if ideal > 0 else 0.0,
    }


def recall_at_k(ranked_ids: Sequence[str], answer_ids: Sequence[str], k: int) -> float:
    """Fraction of the answer sessions among the top k ranked sessions (nan without answer sessions)."""
    answers = set(answer_ids)
    if not answers:
        return float("nan")
    return len(answers & set(ranked_ids[:k])) / len(answers)
