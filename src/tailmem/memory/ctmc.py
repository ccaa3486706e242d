"""The Core-Tail Memory Controller's allocation: rank r gets budget share b(r; tau) proportional to r^-tau.

In share order, each candidate takes the richest form its share (plus what higher shares left unused) buys:
its header with as many facts as fit (the verbatim core), else its one-line summary (the tail); a candidate
that cannot buy one fact borrows it from later shares while the budget has room, so a larger share never ends
with less than a smaller one. What is left then brings skipped candidates in as summaries, so the tail is
summarised rather than dropped (any that still cannot fit are counted in a closing note; the note never evicts the
top-ranked item, the current state whose facts are the step's evidence, and is left out when nothing else could
make room for it), then buys more facts in share order, and finally brings skipped candidates in by their header
line alone (the item's name: a state's code and region) while one fits, so the room left is less than any line
an allocation could still add, and arms of an ablation at one budget spend the same tokens whichever items their
orders happened to complete.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

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
    by_share = [int(i) for i in np.argsort(-share_of, kind="stable")]
    lines_of = [item.lines(encoding) for item in ranked]
    summary_cost = [counter(item.summary) + 1 for item in ranked]
    # cost[i][k]: tokens of item i with header + k facts (k >= 1), each line followed by a newline; one pass
    # of cumulative sums over cached line counts, so a hub with hundreds of facts costs no more than a scan.
    cost, header_cost = [], []
    for lines in lines_of:
        cum = list(accumulate(counter(line) + 1 for line in lines))
        header_cost.append(cum[0])
        cum[0] = 0
        cost.append(cum)
    facts = [0] * n  # facts shown per item (0 = summary or header only)
    shown = [False] * n
    brief = [False] * n  # a tail item shown by its header line alone (the form of the last room: step 3)

    def spent(i: int) -> int:
        if facts[i]:
            return cost[i][facts[i]]
        return (header_cost[i] if brief[i] else summary_cost[i]) if shown[i] else 0

    # 1. Each item, in share order, takes the richest form its share (plus what higher shares left) buys.
    #    An item whose grant cannot buy one fact borrows it from later shares when the budget still has room
    #    beside the later items' summaries, so a larger share never ends poorer than a smaller one.
    carry = 0.0
    committed = 0
    later_summaries = sum(summary_cost)
    for i in by_share:
        later_summaries -= summary_cost[i]
        grant = share_of[i] * budget + carry
        k = max(bisect_right(cost[i], grant, lo=1) - 1, 0)  # costs rise with k: the most facts the grant buys
        if not k and len(cost[i]) > 1 and cost[i][1] <= budget - committed - later_summaries:
            k = 1
        if k:
            facts[i], shown[i] = k, True
        elif summary_cost[i] <= grant:
            shown[i] = True
        carry = grant - spent(i)  # negative after a borrow: later shares repay it
        committed += spent(i)
    # 2. Whatever is left first brings skipped items in as summaries, then buys more facts, in share order,
    #    so the tail is summarised rather than dropped and arms of an ablation spend matched budgets.
    left = budget - sum(spent(i) for i in range(n))
    for i in by_share:
        if not shown[i] and summary_cost[i] <= left:
            shown[i] = True
            left -= summary_cost[i]
    dropped = n - sum(shown)
    noted = False
    if dropped:
        note = counter(_note(dropped)) + 1
        # make room for the note that says how many are not shown, never by evicting the top-ranked item (the
        # current state: the step's evidence); when only it is left, the note yields and is left out
        while left < note:
            j = next((i for i in reversed(by_share) if shown[i] and i != 0), None)
            if j is None:
                break
            left += spent(j)
            facts[j], shown[j] = 0, False
            dropped += 1
            note = counter(_note(dropped)) + 1
        if left >= note:
            left -= note
            noted = True

    def buy_facts(left: int) -> int:
        for i in by_share:
            if not shown[i]:
                continue
            while facts[i] + 1 < len(cost[i]) and cost[i][facts[i] + 1] - spent(i) <= left:
                left -= cost[i][facts[i] + 1] - spent(i)
                facts[i] += 1
        return left

    left = buy_facts(left)
    # 3. Room still left is less than any shown item's next fact and any skipped item's summary, yet often more
    #    than a header line: skipped items come in by their header alone, in share order, while one fits (the
    #    note, when shown, then counts one fewer), and the room that frees buys facts again. Without this step
    #    the room lost was whatever the order's completed items happened to leave: at one matched budget the
    #    reversed-rank arm spent about 2 tokens/step fewer than CTMC.
    for i in by_share:
        if shown[i]:
            continue
        freed = _note_cost(counter, dropped) - _note_cost(counter, dropped - 1) if noted else 0
        if header_cost[i] - freed <= left:
            left -= header_cost[i] - freed
            shown[i] = brief[i] = True
            dropped -= 1
            noted = noted and dropped > 0
    left = buy_facts(left)

    core_lines: list[str] = []
    tail_lines: list[str] = []
    core: list[int] = []
    tail: list[int] = []
    for i in range(n):  # print in rank order: the reader sees the most relevant first
        if facts[i]:
            core_lines.extend(lines_of[i][: facts[i] + 1])
            core.append(ranked[i].id)
        elif shown[i]:
            tail_lines.append(lines_of[i][0] if brief[i] else ranked[i].summary)
            tail.append(ranked[i].id)
    lines = core_lines + tail_lines
    if noted:
        lines.append(_note(dropped))
    return Prompt(
        text="\n".join(lines), tokens=counter.lines(lines), core=tuple(core), tail=tuple(tail), controller=name
    )


def _note(dropped: int) -> str:
    return f"(+{dropped} related items not shown)"


def _note_cost(counter: TokenCounter, dropped: int) -> int:
    """Tokens of the closing note and its newline when `dropped` items are not shown (0: no note)."""
    return counter(_note(dropped)) + 1 if dropped else 0
