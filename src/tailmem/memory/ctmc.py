"""The Core-Tail Memory Controller's allocation: rank r gets budget share b(r; tau) proportional to r^-tau.

Every candidate first gets its one-line summary (the tail is summarised, never silently dropped); the rest of
the budget is shared by rank, and an item whose share buys its header and at least one fact joins the verbatim
core with as many facts as its share (plus what higher shares left unused) pays for. A final pass spends any
remainder in share order, so arms of an ablation at one budget spend the same tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tailmem.memory.items import MemoryItem
from tailmem.memory.prompt import Prompt
from tailmem.memory.tokens import TokenCounter

ORDERS = ("rank", "shuffled", "reversed")


def shares(n: int, tau: float) -> np.ndarray:
    """b(r; tau) for ranks 1..n, normalised to sum to 1 (tau = 0 is uniform)."""
    if n == 0:
        return np.zeros(0)
    w = np.arange(1, n + 1, dtype=float) ** (-float(tau))
    return w / w.sum()


def share_order(n: int, order: str, rng: np.random.Generator | None) -> np.ndarray:
    """Which share each ranked candidate receives: its own rank, a random one, or the reverse."""
    if order == "rank":
        return np.arange(n)
    if order == "reversed":
        return np.arange(n)[::-1].copy()
    if order == "shuffled":
        if rng is None:
            raise ValueError("memory.order=shuffled needs a seeded generator")
        return rng.permutation(n)
    raise ValueError(f"memory.order must be one of {ORDERS}, got {order!r}")


def _facts_cost(counter: TokenCounter, lines: Sequence[str], k: int) -> int:
    return counter.lines(lines[: k + 1])


def allocate(
    ranked: Sequence[MemoryItem],
    budget: int,
    tau: float,
    encoding: str,
    counter: TokenCounter,
    order: str = "rank",
    rng: np.random.Generator | None = None,
    name: str = "ctmc",
) -> Prompt:
    n = len(ranked)
    share_of = shares(n, tau)[share_order(n, order, rng)]  # share_of[i]: share of the i-th ranked item
    summary_cost = [counter(item.summary) + 1 for item in ranked]

    # Summaries first, by share, while they fit; an item that does not fit even as a summary is counted out loud.
    by_share = np.argsort(-share_of, kind="stable")
    note_cost = counter(_note(n)) + 1 if sum(summary_cost) > budget else 0
    kept = []
    used = note_cost
    for i in by_share:
        if used + summary_cost[i] <= budget:
            kept.append(int(i))
            used += summary_cost[i]
    dropped = n - len(kept)

    # Core: upgrade summaries to header + k facts with each item's share of the remainder.
    remainder = budget - used
    facts = dict.fromkeys(kept, 0)
    carry = 0.0
    for i in kept:
        lines = ranked[i].lines(encoding)
        grant = share_of[i] * remainder + carry
        k = _max_facts(counter, lines, grant + summary_cost[i])
        spent = (_facts_cost(counter, lines, k) + 1 - summary_cost[i]) if k > 0 else 0
        facts[i] = k
        carry = grant - spent
    used_now = sum(
        (_facts_cost(counter, ranked[i].lines(encoding), facts[i]) + 1) if facts[i] else summary_cost[i] for i in kept
    )
    # Spend what is left in share order, one fact at a time, so matched budgets are matched.
    left = budget - used_now
    for i in kept:
        lines = ranked[i].lines(encoding)
        while facts[i] < len(lines) - 1:
            now = (_facts_cost(counter, lines, facts[i]) + 1) if facts[i] else summary_cost[i]
            nxt = _facts_cost(counter, lines, facts[i] + 1) + 1
            if nxt - now > left:
                break
            left -= nxt - now
            facts[i] += 1

    core_lines: list[str] = []
    tail_lines: list[str] = []
    core: list[int] = []
    tail: list[int] = []
    for i in sorted(kept):  # print in rank order: the reader sees the most relevant first
        item = ranked[i]
        if facts[i] > 0:
            core_lines.extend(item.lines(encoding)[: facts[i] + 1])
            core.append(item.id)
        else:
            tail_lines.append(item.summary)
            tail.append(item.id)
    lines = core_lines + tail_lines
    if dropped:
        lines.append(_note(dropped))
    return Prompt(text="\n".join(lines), tokens=counter.lines(lines), core=tuple(core), tail=tuple(tail), controller=name)


def _note(dropped: int) -> str:
    return f"(+{dropped} related items not shown)"


def _max_facts(counter: TokenCounter, lines: Sequence[str], grant: float) -> int:
    """The most facts (0 if not even one) whose header-plus-facts block costs at most `grant` tokens."""
    k = 0
    while k < len(lines) - 1 and _facts_cost(counter, lines, k + 1) + 1 <= grant:
        k += 1
    return k
