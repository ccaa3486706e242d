"""Turning chosen items and history records into a memory block, and counting what it costs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tailmem.memory.items import MemoryItem, StepRecord
from tailmem.memory.prompt import Prompt
from tailmem.memory.tokens import TokenCounter


def greedy_items(
    items: Sequence[MemoryItem], encoding: str, counter: TokenCounter, budget: int | None, name: str
) -> Prompt:
    """Whole items verbatim in the given order while they fit the budget; the rest are left out.

    This is how the baselines spend a budget: an item that does not fit is dropped, not summarised.
    """
    lines: list[str] = []
    core: list[int] = []
    used = 0
    for item in items:
        item_lines = item.lines(encoding)
        cost = counter.lines(item_lines) + (1 if lines else 0)
        if budget is not None and used + cost > budget:
            continue
        lines.extend(item_lines)
        core.append(item.id)
        used += cost
    return Prompt(text="\n".join(lines), tokens=used, core=tuple(core), controller=name)


def history_block(
    records: Iterable[StepRecord],
    encoding: str,
    counter: TokenCounter,
    name: str,
    extra: Sequence[str] = (),
    tail: Sequence[int] = (),
) -> Prompt:
    """History records (oldest first) as lines, optionally followed by extra summary lines."""
    records = list(records)
    lines = [r.verbose if encoding == "verbose" else r.compact for r in records]
    ids = tuple(dict.fromkeys(i for r in records for i in r.item_ids))
    lines.extend(extra)
    tail = tuple(i for i in tail if i not in set(ids))
    return Prompt(text="\n".join(lines), tokens=counter.lines(lines), core=ids, tail=tail, controller=name)
