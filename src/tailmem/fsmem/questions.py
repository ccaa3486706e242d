"""Which LoCoMo questions a run asks: the categories, the cap and its stratification.

The answer stage asks them, and the controller study's design check counts them before any model call.
"""

from __future__ import annotations

import logging

from tailmem.data.locomo import questions
from tailmem.errors import ConfigError, DataError
from tailmem.fsmem.benchmarks import MAIN_BENCHMARK, categories, conversation, conversation_ids

log = logging.getLogger(__name__)


def stratified(qs: list, limit: int, cats) -> list:
    """`limit` questions spread evenly over the categories (in `cats` order, round robin: the i-th question of
    each category in turn, a category with fewer simply runs out), returned in file order."""
    by_cat = {c: [i for i, q in enumerate(qs) if q.category == c] for c in cats}
    picked: list[int] = []
    for rank in range(max((len(v) for v in by_cat.values()), default=0)):
        for c in cats:
            if len(picked) < limit and rank < len(by_cat[c]):
                picked.append(by_cat[c][rank])
    return [qs[i] for i in sorted(picked)]


def select_questions(conv, fs, benchmark: str) -> list:
    """The questions a run asks: those of `fsmem.categories` (the conversation is already cut to
    `fsmem.max_sessions`, keeping the questions whose evidence lies in the kept sessions), then at most
    `fsmem.max_questions` (null: all): the first ones in file order, or with `fsmem.stratified` as evenly over
    the categories as they allow."""
    limit = fs.max_questions
    if limit is not None and int(limit) < 1:
        raise ConfigError(f"fsmem.max_questions: expected null or >= 1, got {limit}")
    cats = categories(fs, benchmark)
    if limit is not None and fs.stratified:
        return stratified(questions(conv, cats), int(limit), cats)
    return questions(conv, cats, None if limit is None else int(limit))


def asked(fs) -> int | None:
    """The LoCoMo questions the answer stages ask over every configured conversation: the cap, the categories and
    the sessions kept together decide it (3 sessions hold the evidence of only 8 stratified questions of conv-50,
    whatever `fsmem.max_questions`). None when the data is not there (a plan then counts the cap)."""
    try:
        return sum(
            len(select_questions(conversation(fs, MAIN_BENCHMARK, c), fs, MAIN_BENCHMARK))
            for c in conversation_ids(fs, MAIN_BENCHMARK)
        )
    except (OSError, DataError) as e:
        log.warning("LoCoMo questions not counted from the data (%s); the config's cap counts", e)
        return None
