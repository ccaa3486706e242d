"""Retrieval semantics in plain Python: the memory of one rollout and what each design places into context.

This is the per-step path (any policy, including a later LLM policy) and the reference the numba kernel is
checked against; `kernel.py` implements the same rules over CSR arrays. The rules, at step t in state s:

- the visit: item s is accessed and becomes stored (an item is stored once its state has been visited);
- `none`: nothing more;
- `recency`: the distinct items visited in steps t-k .. t-1 (across episode boundaries: memory persists),
  excluding s, most recent first, each accessed once;
- `state_mate_uniform`: up to k stored neighbours of s, drawn without replacement, uniformly;
- `state_aware_frequency`: up to k stored neighbours of s, drawn without replacement with probability
  proportional to (accesses so far + 1).

Draw j of step t uses uniform u[t, j]. The candidates are s's stored neighbours in ascending order; a uniform
draw picks index floor(u * m) of the m remaining candidates, a weighted draw picks the first candidate whose
cumulative weight exceeds u * (total remaining weight); the pick is then removed, keeping the order of the rest.
Weights are integers, so the float comparisons are exact and both implementations agree to the last access.
"""

from __future__ import annotations

from typing import Callable, Sequence

from tailmem.settings.rollout import DESIGNS


class Retriever:
    """The memory of one rollout (stored items, access counts, visit history) and one retrieval design."""

    def __init__(self, n: int, design: str, k: int, neighbors: Callable[[int], Sequence[int]]):
        if design not in DESIGNS:
            raise ValueError(f"unknown retrieval design {design!r}; expected one of {DESIGNS}")
        self.design, self.k, self.neighbors = design, k, neighbors
        self.counts = [0] * n
        self.stored = [False] * n
        self.history: list[int] = []  # state visited at each step so far
        self.access_step: list[int] = []
        self.access_item: list[int] = []

    def _access(self, t: int, item: int) -> None:
        self.counts[item] += 1
        self.access_step.append(t)
        self.access_item.append(item)

    def step(self, t: int, state: int, u: Sequence[float]) -> list[int]:
        """Visit `state` at step t, then retrieve; return the retrieved items (besides `state`), in access order.

        `u` holds the step's retrieval uniforms (k of them for the sampling designs, else unused).
        """
        if t != len(self.history):
            raise ValueError(f"steps must come in order: expected step {len(self.history)}, got {t}")
        self._access(t, state)
        self.stored[state] = True
        self.history.append(state)
        if self.design == "none" or self.k == 0:
            return []
        if self.design == "recency":
            picked: list[int] = []
            for item in reversed(self.history[max(0, t - self.k) : t]):
                if item != state and item not in picked:
                    picked.append(item)
        else:
            picked = self._sample(state, u)
        for item in picked:
            self._access(t, item)
        return picked

    def _sample(self, state: int, u: Sequence[float]) -> list[int]:
        """Up to k stored neighbours without replacement (uniform or access-weighted; see the module rules)."""
        candidates = [v for v in self.neighbors(state) if self.stored[v]]
        weighted = self.design == "state_aware_frequency"
        total = sum(self.counts[v] + 1 for v in candidates)
        picked = []
        for j in range(min(self.k, len(candidates))):
            if weighted:
                target = u[j] * total
                index, cumulative = len(candidates) - 1, 0
                for i, v in enumerate(candidates):
                    cumulative += self.counts[v] + 1
                    if cumulative > target:
                        index = i
                        break
                total -= self.counts[candidates[index]] + 1
            else:
                index = min(int(u[j] * len(candidates)), len(candidates) - 1)
            picked.append(candidates.pop(index))
        return picked
