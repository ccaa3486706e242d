"""BM25 over one question's haystack: which sessions are candidates, and which turns of a session matter most.

Sessions are ranked by BM25 over their whole text (the candidate list Graph Memory and CTMC spend a budget on);
turns are scored by a second BM25 index over single turns, so an item can list its most relevant turns first
and a controller that keeps only some of a session's facts keeps the ones the question is about.
Ties keep the order the sessions were given in (the seed's haystack order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import logging

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
    session_scores = _scores(_index([" ".join(t.content for t in s.turns) or " " for s in sessions]), query, len(sessions))
    flat = [t.content or " " for s in sessions for t in s.turns]
    flat_scores = _scores(_index(flat), query, len(flat)) if flat else np.zeros(0)
    turn_scores, start = [], 0
    for s in sessions:
        turn_scores.append(tuple(float(x) for x in flat_scores[start : start + len(s.turns)]))
        start += len(s.turns)
    order = tuple(int(i) for i in np.argsort(-session_scores, kind="stable"))
    return Ranking(order, tuple(float(x) for x in session_scores), tuple(turn_scores))


def recall_at_k(ranked_ids: Sequence[str], answer_ids: Sequence[str], k: int) -> float:
    """Fraction of the answer sessions among the top k ranked sessions (nan without answer sessions)."""
    answers = set(answer_ids)
    if not answers:
        return float("nan")
    return len(answers & set(ranked_ids[:k])) / len(answers)
