"""Choosing among given options with a chat model: how the question is asked and how the reply is read."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")


def listing(options: list[str]) -> str:
    """The options numbered from 1, one a line: what a reply names by number."""
    return "\n".join(f"{i + 1}. {o}" for i, o in enumerate(options))


def question(prompt: str, options: list[str]) -> str:
    listed = listing(options)
    return f"{prompt}\n\nOptions:\n{listed}\n\nAnswer with the number of one option (1-{len(options)}) only."


def reask(n: int) -> str:
    return f"That was not an option number. Reply with a single integer from 1 to {n}, nothing else."


def parse(reply: str | None, options: list[str]) -> int | None:
    """The 0-based option a reply names: its first in-range number, else the one option quoted verbatim."""
    if not reply:
        return None
    for m in re.finditer(r"\d+", reply):
        k = int(m.group())
        if 1 <= k <= len(options):
            return k - 1
    text = reply.strip().lower()
    quoted = [i for i, o in enumerate(options) if o.strip() and o.strip().lower() in text]
    return quoted[0] if len(quoted) == 1 else None


def closest(reply: str | None, options: list[str]) -> int:
    """Last resort, always valid: the option sharing most words with the reply (ties and no reply: the first)."""
    words = set(_WORD.findall((reply or "").lower()))
    overlap = [len(words & set(_WORD.findall(o.lower()))) for o in options]
    return max(range(len(options)), key=lambda i: (overlap[i], -i))
