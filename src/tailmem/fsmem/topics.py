"""A small topic lexicon for the programmatic builder and the foldered variant: a turn belongs to every topic
whose keywords (Porter stems) it mentions. Rule-based on purpose, so offline stores are reproducible."""

from __future__ import annotations

from collections import Counter
from functools import cache

from tailmem.fsmem.terms import stem, terms

LEXICON = {
    "music": "music song album concert band guitar sing singer perform stage tour record studio rapper festival",
    "cars": "car cars engine drive driving mechanic restore ferrari vehicle racing garage auto motor",
    "travel": "travel trip tokyo japan city flight visit vacation abroad journey explore boston",
    "work": "work job shop business career boss client company project office team colleague",
    "family": "family mom dad mother father brother sister parent kid child son daughter wife husband",
    "friends": "friend friends buddy party hang meet together",
    "food": "food cook cooking recipe dinner restaurant eat meal bake coffee",
    "fitness": "gym workout run running sport exercise yoga hike hiking basketball soccer",
    "art": "art paint painting draw photo photography design creative",
    "pets": "dog cat pet puppy kitten",
    "health": "health doctor hospital sick injury stress relax therapy",
    "home": "home house mansion apartment move moved room",
    "media": "book read movie film show series game gaming",
}


@cache
def _stems() -> dict[str, set[str]]:
    """The lexicon's stems, made on first use (stemming imports nltk, about a second)."""
    return {topic: {stem(w) for w in words.split()} for topic, words in LEXICON.items()}


def topics_of(text: str) -> list[str]:
    ts = set(terms(text))
    return [t for t, keys in _stems().items() if ts & keys]


def dominant_topic(text: str) -> str:
    counts = Counter()
    for term in terms(text):
        for topic, keys in _stems().items():
            if term in keys:
                counts[topic] += 1
    return counts.most_common(1)[0][0] if counts else "misc"
