"""PersonaMem's metric: exact match on the option letter. A reply counts only if one letter can be read from it
("(c)", "c)", "c", "Answer: (c) ..."); anything else is wrong, never guessed."""

from __future__ import annotations

import re

_PAREN = re.compile(r"\(([a-h])\)", re.I)
_BARE = re.compile(r"^\s*(?:answer\s*[:\-]?\s*)?([a-h])(?:[).:\s]|$)", re.I)


def option_letter(reply: str) -> str | None:
    text = str(reply or "")
    m = _PAREN.search(text) or _BARE.match(text)
    return m.group(1).lower() if m else None


def exact_match(reply: str, gold: str) -> float:
    letter = option_letter(reply)
    return float(letter is not None and letter == gold.strip().strip("()").lower())
