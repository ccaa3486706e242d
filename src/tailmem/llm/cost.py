"""Dollars from tokens, and paper 2's intrinsic-efficiency bounds (its section C.5).

Per call we keep uncached input, cached input and output tokens; dollars apply a price table to them, so prices can
change without re-running. The bounds compare measured billing with two references over a transcript (the calls
of one agent episode, each prompt extending the one before):

- no-cache bound: every prompt token billed at the uncached input price, every output at the output price;
- perfect bound: every transcript token pre-filled once and every output decoded once, i.e. a turn pays only for
  the input tokens its predecessor's prompt and output did not already contain;
- efficiency share = (no-cache - measured) / (no-cache - perfect): the part of achievable caching savings realised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tailmem.llm.records import Usage
from tailmem.settings.llm import Price


def dollars(usage: Usage, price: Price) -> float:
    """Measured cost of one call."""
    return (
        usage.uncached_tokens * price.input
        + usage.cached_tokens * price.cached_input
        + usage.completion_tokens * price.output
    ) / 1e6


@dataclass(frozen=True)
class Bounds:
    """Measured cost against paper 2's no-cache and perfect bounds, in dollars."""

    measured: float
    no_cache: float
    perfect: float

    @property
    def share(self) -> float:
        """(no-cache - measured) / (no-cache - perfect); NaN when caching could save nothing."""
        room = self.no_cache - self.perfect
        return (self.no_cache - self.measured) / room if room > 0 else math.nan


def fresh_input_tokens(transcript: Sequence[Usage]) -> int:
    """Input tokens a perfect cache pre-fills once: each turn's prompt minus the previous prompt and output."""
    fresh, seen = 0, 0
    for u in transcript:
        fresh += max(0, u.prompt_tokens - seen)
        seen = max(seen, u.prompt_tokens) + u.completion_tokens
    return fresh


def bounds(transcripts: Sequence[Sequence[Usage]], price: Price) -> Bounds:
    """Bounds summed over transcripts; pass each independent call as a transcript of one."""
    measured = no_cache = perfect = 0.0
    for t in transcripts:
        out = sum(u.completion_tokens for u in t)
        measured += sum(dollars(u, price) for u in t)
        no_cache += (sum(u.prompt_tokens for u in t) * price.input + out * price.output) / 1e6
        perfect += (fresh_input_tokens(t) * price.input + out * price.output) / 1e6
    return Bounds(measured=measured, no_cache=no_cache, perfect=perfect)
