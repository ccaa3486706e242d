"""Search terms for BM25 and for the programmatic agents: lowercase words, English stopwords out, Porter stems
(nltk's stemmer needs no downloaded data). Words, not a model's tokens (those are `tailmem.llm.tokens`)."""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)?")

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
    off on once only or other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves s t don ll re ve m d
    also get got go going gonna really yeah oh hey hi wow like just so much lot thing things something anything
    did does do kind sort way well""".split()
)

_stemmer = []  # nltk's PorterStemmer, made on first use: importing nltk takes about a second, and the registries
# that import this module (fsmem.variants) are read whenever a config is validated


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    if not _stemmer:
        from nltk.stem import PorterStemmer

        _stemmer.append(PorterStemmer())
    return _stemmer[0].stem(word)


def words(text: str) -> list[str]:
    """Lowercase words with possessive/contraction suffixes dropped."""
    return [w.split("'")[0] for w in WORD.findall(text.lower())]


def terms(text: str) -> list[str]:
    """Stemmed content words: what BM25 indexes and what the searcher matches."""
    return [stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1]
