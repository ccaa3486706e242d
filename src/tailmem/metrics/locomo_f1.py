"""LoCoMo's token F1, as its evaluation defines it.

Normalisation: drop commas, lowercase, drop punctuation, drop the words a/an/the/and, collapse spaces; then
Porter-stem every token and take the F1 of the token multisets. Category 1 (multi-hop) splits prediction and
gold on commas and averages, over gold parts, the best F1 of any predicted part. Category 3 keeps the gold
answer only up to its first ';'. Categories 2 and 4 use the plain token F1.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from nltk.stem import PorterStemmer

_stemmer = PorterStemmer()
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


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


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """The score of one answer; category 5 (adversarial) is not scored by F1."""
    if category == 1:
        return multi_answer_f1(prediction, gold)
    if category == 3:
        return token_f1(prediction, str(gold).split(";")[0].strip())
    if category in (2, 4):
        return token_f1(prediction, gold)
    raise ValueError(f"LoCoMo category {category}: F1 is defined for categories 1-4")
