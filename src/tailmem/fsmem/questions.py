"""Which LoCoMo questions a run asks: the categories, the cap and its stratification.

The answer stage asks them, and the controller study's design check counts them before any model call.
"""

from __future__ import annotations

from tailmem.data.locomo import questions
from tailmem.errors import ConfigError
from tailmem.fsmem.benchmarks import categories


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
