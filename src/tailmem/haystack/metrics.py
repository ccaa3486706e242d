"""Model-free scores of one answer and one prompt: substring-match accuracy, abstention, evidence coverage.

Substring match (paper 1's metric) asks whether the gold answer's words appear, contiguous and in order, in the
response's words after lower-casing and dropping punctuation; word boundaries keep "5" from matching "2015".
An abstention question is answered right when the response abstains, and any other question wrongly when it
does. Evidence coverage is the model-free twin (DESIGN.md section 4): were the answer-bearing turns in the prompt.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tailmem.data.longmemeval import Question
from tailmem.haystack.haystack_memory import clip, flat

_WORD = re.compile(r"[a-z0-9]+")
_ABSTAIN = re.compile(
    r"\b(i don'?t know|not (?:been )?mentioned|did not mention|didn'?t mention|no information|not enough information|"
    r"information provided is not enough|cannot (?:be )?(?:answer|determine)|can'?t (?:answer|determine)|unknown|"
    r"not in (?:the|my) memory)\b",
    re.I,
)


def norm_words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("'", ""))


def abstains(response: str) -> bool:
    return bool(_ABSTAIN.search(response or ""))


def substring_match(response: str, gold: str) -> bool:
    """The gold answer's normalised words occur contiguously in the response's."""
    g, r = norm_words(gold), norm_words(response or "")
    if not g:
        return False
    n = len(g)
    return any(r[i : i + n] == g for i in range(len(r) - n + 1))


def substring_correct(question: Question, response: str) -> bool:
    """Paper 1's accuracy of one answer; abstention questions are right when the response abstains."""
    if question.abstention:
        return abstains(response)
    return not abstains(response) and substring_match(response, question.answer)


def evidence_coverage(question: Question, prompt_text: str, turn_words: int | None = None) -> float:
    """Fraction of the `has_answer` turns whose text is in the prompt (nan when the question has none). With
    `turn_words` the store holds each turn's first words only (`haystack_memory.clip`), and that is what is looked
    for: coverage then says whether the stored evidence reached the prompt, not whether the clip kept the answer."""
    turns = [question.sessions[s].turns[t] for s, t in question.evidence]
    if not turns:
        return float("nan")
    text = flat(prompt_text)
    return sum(clip(turn.content, turn_words) in text for turn in turns) / len(turns)


def sessions_in_prompt(answer_positions: Sequence[int], placed: Sequence[int]) -> float:
    """Fraction of the answer sessions the prompt places (verbatim or as a summary); nan without any."""
    if not answer_positions:
        return float("nan")
    return len(set(answer_positions) & set(placed)) / len(answer_positions)
