"""Answer length beside accuracy (issue 31): the column every QA table prints is tiktoken's own count of the
answer text, in the fsmem study tables, PersonaMem's replies and the LongMemEval summary alike."""

import math

import pandas as pd
import pytest
import tiktoken

from tailmem.llm.tokens import get_encoding
from tailmem.metrics.answer_length import COLUMN, ENCODING, answer_tokens, mean_answer_tokens
from tailmem.studies.fsmem import personamem
from tailmem.studies.fsmem import report as fsmem_study
from tailmem.studies.longmemeval import tables as longmemeval_tables

ANSWERS = ["Shibuya crossing and Shinjuku", "His Dad", "", "I do not know: the store says nothing about it."]


def tiktoken_mean(texts):
    enc = get_encoding(ENCODING)  # tiktoken's Encoding itself, loaded offline
    assert isinstance(enc, tiktoken.Encoding)
    return sum(len(enc.encode(t)) for t in texts) / len(texts)


def test_counts_are_tiktokens():
    assert answer_tokens("") == 0 and answer_tokens(None) == 0 and answer_tokens(float("nan")) == 0
    assert mean_answer_tokens(ANSWERS) == pytest.approx(tiktoken_mean(ANSWERS))
    assert math.isnan(mean_answer_tokens([]))


def test_study_tables_carry_the_column():
    df = pd.DataFrame(
        {"f1": [1.0, 0.5, 0.0, 0.0], "category": [1, 2, 3, 4], "judge_correct": [None] * 4, "answer": ANSWERS}
    )
    assert fsmem_study._correctness(df, "locomo")[COLUMN] == pytest.approx(tiktoken_mean(ANSWERS))
    assert COLUMN in personamem.COLUMNS


def test_longmemeval_summary_carries_the_column():
    n = len(ANSWERS)
    rows = pd.DataFrame(
        {
            "dataset": "oracle",
            "arm": "graph_memory",
            "label": "GM",
            "seed": 0,
            "qid": list("abcd"),
            "prompt_tokens": 10.0,
            "memory_tokens": 5.0,
            "question_type": "single-session-user",
            "correct": [True, False, True, False],
            "abstention": False,
            "coverage": 1.0,
            "answer_sessions_placed": 1.0,
            "recall@5": 1.0,
            "answer": ANSWERS,
        }
    )
    per_seed = longmemeval_tables.per_seed_summary(rows, [5])
    assert len(rows) == n and per_seed["answer_tokens"].iloc[0] == pytest.approx(tiktoken_mean(ANSWERS))
