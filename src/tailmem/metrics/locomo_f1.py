"""LoCoMo's token F1, as its evaluation defines it.

Normalisation: drop commas, lowercase, drop ASCII punctuation, drop the words a/an/the/and, collapse spaces; then
Porter-stem every token and take the F1 of the token multisets. Word boundaries come from the `regex` package, as
in LoCoMo's scorer: its `\\b` treats combining marks and joiners as word characters (so "the" followed by U+0301
is one word, kept), where Python's `re` does not. Category 1 (multi-hop) splits prediction and gold on commas and
averages, over gold parts, the best F1 of any predicted part. Category 3 keeps the gold answer only up to its
first ';'. Categories 2 and 4 use the plain token F1. Category 5 (adversarial) is not an F1: the answer scores 1
when it says "no information available" or "not mentioned" (any case), else 0. Category 5 is scored only when a
run opts in by listing it in `fsmem.categories`; paper 2's protocol (the default) answers categories 1-4 only.
"""

from __future__ import annotations

import string
from collections import Counter

import regex
from nltk.stem import PorterStemmer

_stemmer = PorterStemmer()
_ARTICLES = regex.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)
ABSTAIN_PHRASES = ("no information available", "not mentioned")
CATEGORIES = (1, 2, 3, 4, 5)


def normalize(text: str) -> str:
    text = str(text).replace(",", "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_f1(prediction: str, gold: str) -> float:
    pred = [_stemmer.stem(w) for w in normalize(prediction).split()]
    ref = [_stemmer.stem(w) for w in normalize(gold).split()]
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    p, r = same / len(pred), same / len(ref)
    return 2 * p * r / (p + r)


def multi_answer_f1(prediction: str, gold: str) -> float:
    preds = [p.strip() for p in str(prediction).split(",")]
    golds = [g.strip() for g in str(gold).split(",")]
    return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds)


def adversarial_score(prediction: str) -> float:
    """Category 5: did the answer decline (LoCoMo's two phrases, case-insensitive substring)."""
    text = str(prediction).lower()
    return float(any(phrase in text for phrase in ABSTAIN_PHRASES))


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """The score of one answer, by category (5: the adversarial rule above, not an F1)."""
    if category == 1:
        return multi_answer_f1(prediction, gold)
    if category == 3:
        return token_f1(prediction, str(gold).split(";")[0].strip())
    if category in (2, 4):
        return token_f1(prediction, gold)
    if category == 5:
        return adversarial_score(prediction)
    raise ValueError(f"LoCoMo category {category!r}: expected one of {list(CATEGORIES)}")
