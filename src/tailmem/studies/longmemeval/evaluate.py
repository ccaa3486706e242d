"""One question under every arm: the haystack becomes memory, each controller builds a prompt, the prompt is
answered and scored. Every arm sees the same items, ranking and question (matched replay, as in the graph world).

What a seed changes: the haystack's session order before indexing (item ids, BM25 and Flat Retrieval
tie-breaks, the order equal candidates enter a prompt) and, with a model, the request's `seed`. With the
programmatic answerer nothing else varies, so seed-level sd measures only order effects.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np

from tailmem.data.longmemeval import Question, Session
from tailmem.haystack import metrics
from tailmem.haystack.answer import ProgrammaticAnswerer, full_prompt
from tailmem.haystack.arms import NO_EVIDENCE, Arm
from tailmem.haystack.haystack_memory import build_store
from tailmem.haystack.retrieval import (
    Ranking,
    correct_sessions,
    official_metrics,
    official_retrieval_question,
    rank,
    recall_at_k,
)
from tailmem.memory.budget import SpentPerStep, controller_settings, resolve
from tailmem.memory.controllers import make_controller
from tailmem.memory.marks import line_marks
from tailmem.memory.query import Query
from tailmem.memory.tokens import TokenCounter


@dataclass(frozen=True)
class Built:
    """One arm's prompt for one question, scored without a model, and the request text to answer it with."""

    row: dict
    memory: str
    # the question's sessions in haystack order and their BM25 ranking: its line of the official retrieval log
    # (`tailmem.exports.longmemeval_retrieval.retrieval_record`, which the stage writes)
    haystack: tuple[Session, ...] = ()
    ranking: Ranking | None = None


def without_evidence(question: Question) -> Question:
    """`question` with every answer-bearing turn taken out of its haystack (a session left empty goes too): what
    the reader sees when the gold evidence is removed, for the check that its accuracy depends on it."""
    sessions = tuple(
        replace(s, turns=kept) for s in question.sessions if (kept := tuple(t for t in s.turns if not t.has_answer))
    )
    return replace(question, sessions=sessions)


def haystack_order(question: Question, seed: int) -> np.ndarray:
    rng = np.random.default_rng([seed, zlib.crc32(question.qid.encode())])
    return rng.permutation(len(question.sessions))


def build_prompts(
    question: Question,
    arms: list[Arm],
    seed: int,
    candidates: int,
    recall_ks,
    counter: TokenCounter,
    turn_words: int | None = None,
) -> list[Built]:
    """Every arm's prompt for `question`; turns cut to `turn_words` words in the store (None = whole turns)."""
    perm = haystack_order(question, seed)
    sessions = tuple(question.sessions[i] for i in perm)
    ranking = rank(sessions, question.question)
    store = build_store(question, sessions, ranking, turn_words)
    top = ranking.order[:candidates]
    query = Query(step=0, current=top[0] if top else None, related=tuple(top[1:]), text=question.question)
    answers = set(question.answer_session_ids)
    answer_pos = [k for k, s in enumerate(sessions) if s.id in answers]
    ranked_ids = [sessions[k].id for k in ranking.order]
    recall = {f"recall@{k}": recall_at_k(ranked_ids, question.answer_session_ids, int(k)) for k in recall_ks}
    correct = correct_sessions(sessions, question.answer_session_ids)
    for k in recall_ks:
        recall |= official_metrics(ranked_ids, correct, int(k))
    recall["retrieval_scored"] = official_retrieval_question(question.qid, sessions)
    built, graph = [], None
    for arm in arms:
        # CTMC's `matched` budget: its ratio of Graph Memory's memory tokens on this question (arms.make_arms
        # puts Graph Memory first; a matched arm before it has no reference and raises)
        budget = resolve(arm.memory, reference=graph, ratio=1.0 if arm.ratio is None else arm.ratio)
        settings = controller_settings(arm.memory, budget)
        prompt = make_controller(settings, seed=seed).build(store, query, counter)
        text = full_prompt(prompt.text, question.question, question.date)
        prompt_tokens = counter.exact(text)
        if arm.name == "graph_memory":
            graph = SpentPerStep(prompt_tokens, prompt.tokens)
        built.append(
            Built(
                row={
                    "qid": question.qid,
                    "question_type": question.qtype,
                    "abstention": question.abstention,
                    "seed": seed,
                    "arm": arm.name,
                    "label": arm.label,
                    "budget": budget.tokens,
                    "sessions": len(sessions),
                    "prompt_tokens": prompt_tokens,
                    "memory_tokens": prompt.tokens,
                    "n_core": len(prompt.core),
                    "n_tail": len(prompt.tail),
                    "coverage": metrics.evidence_coverage(question, prompt.text, turn_words),
                    "answer_sessions_placed": metrics.sessions_in_prompt(answer_pos, prompt.accessed),
                    **recall,
                    # for the site's side-by-side view: the question, the block and which of its lines are the tail
                    "question": question.question,
                    "memory": prompt.text,
                    "marks": line_marks(prompt, store.items),
                },
                memory=prompt.text,
                haystack=sessions,
                ranking=ranking,
            )
        )
    return built


def build_without_evidence(
    question: Question,
    arm: Arm,
    seed: int,
    candidates: int,
    recall_ks,
    counter: TokenCounter,
    turn_words: int | None = None,
) -> Built:
    """`arm`'s prompt (Graph Memory's) for `question` with its gold evidence removed, as the check arm
    `NO_EVIDENCE`; scored against the question as asked."""
    b = build_prompts(without_evidence(question), [arm], seed, candidates, recall_ks, counter, turn_words)[0]
    return Built(b.row | {"arm": NO_EVIDENCE, "label": f"{b.row['label']}, gold evidence removed"}, b.memory)


def score(question: Question, row: dict, response: str, agent: str, **extra) -> dict:
    """The row scored; `extra` adds columns (a model answer's seconds and tokens: `Answer.accounting`)."""
    return row | {
        "answer": response,
        "gold": question.answer,
        "answerer": agent,
        "correct": metrics.substring_correct(question, response),
        "abstained": metrics.abstains(response),
        **extra,
    }


def evaluate_programmatic(question: Question, built: list[Built], answerer: ProgrammaticAnswerer) -> list[dict]:
    out = []
    for b in built:
        a = answerer.answer(b.memory, question.question, question.date)
        out.append(score(question, b.row, a.text, a.agent))
    return out
