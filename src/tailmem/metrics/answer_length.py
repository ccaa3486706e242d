"""Answer length in tokens, printed beside accuracy in every QA table: lenient judges reward long
answers, so an accuracy is read with the length of the answers that earned it.

Counted with tiktoken (`tailmem.llm.tokens`, offline) in one fixed encoding, so the column compares across
backends and models (it describes the answer text, not what any one model was billed).
"""

from __future__ import annotations

import math

from tailmem.llm.tokens import count_tokens

ENCODING = "o200k_base"
COLUMN = "answer tokens"  # the column name in every QA table
NOTE = (
    f"{COLUMN} = mean tokens of the answer text ({ENCODING}, tailmem.metrics.answer_length), beside accuracy "
    "because lenient judges reward long answers."
)


def answer_tokens(text) -> int:
    """Tokens of one answer (an empty or missing answer has none)."""
    return count_tokens(str(text), ENCODING) if text is not None and text == text else 0


def mean_answer_tokens(texts) -> float:
    """Mean tokens over answers (nan when there are none)."""
    counts = [answer_tokens(t) for t in texts]
    return sum(counts) / len(counts) if counts else math.nan
