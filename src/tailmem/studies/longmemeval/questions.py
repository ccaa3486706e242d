"""Which LongMemEval questions a run asks, and which of them it asks again without their evidence.

One home for the selection, because two places must agree on it: the stage (`run.py`) answers these questions, and
the study's design-check rows (`design_rows.py`) plan their power over the same count before any call.
"""

from __future__ import annotations

from tailmem.data.longmemeval import load, select
from tailmem.errors import ConfigError


def asked(lme) -> tuple[str, list]:
    """(dataset, questions) of `lme` (the longmemeval group): `max_per_type` of each type, then at most
    `max_questions` of those taken one type at a time (`round_robin`)."""
    dataset = str(lme.dataset)
    if dataset not in lme.files:
        raise ConfigError(f"longmemeval.dataset: {dataset!r} has no file; expected one of {list(lme.files)}")
    limit = lme.max_per_type
    if limit is not None and int(limit) < 1:
        raise ConfigError(f"longmemeval.max_per_type: expected null or >= 1, got {limit}")
    chosen = select(load(lme.files[dataset]), None if limit is None else int(limit))
    total = lme.max_questions
    if total is not None and int(total) < 1:
        raise ConfigError(f"longmemeval.max_questions: expected null or >= 1, got {total}")
    return dataset, chosen if total is None else round_robin(chosen, int(total))


def round_robin(questions: list, n: int) -> list:
    """The first `n` questions taking one of each type in turn (types in order of first appearance), so a cap
    below the number of types still spans as many types as it can; the kept questions stay in their order."""
    by_type: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        by_type.setdefault(q.qtype, []).append(i)
    picked: list[int] = []
    depth = 0
    while len(picked) < min(n, len(questions)):
        for idx in by_type.values():
            if depth < len(idx) and len(picked) < n:
                picked.append(idx[depth])
        depth += 1
    return [questions[i] for i in sorted(picked)]


def context_checked(questions: list, limit) -> set[str]:
    """The ids of the questions answered again without their gold evidence (`longmemeval.context_check`): the first
    `limit` that have answer-bearing turns and are not abstention questions (None = all of them, 0 = none)."""
    eligible = [q.qid for q in questions if q.evidence and not q.abstention]
    return set(eligible if limit is None else eligible[: int(limit)])
