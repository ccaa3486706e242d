"""An arm's memory budget, resolved in one place: the tokens of memory an arm's prompt may hold at a step.

A budget reaches a controller from three sources, and each study used to turn them into tokens on its own:

- nominal: `memory.budget: <tokens>` in configs/memory/<name>.yaml (or a benchmark's override);
- matched: `memory.budget: matched` (MATCHED), the tokens per step a reference arm (Graph Memory on the same
  replay or question) measurably spent, times a `ratio` (1 in the controller study; LongMemEval's CTMC arm
  `ctmc-r<ratio>` spends a share);
- none: no `budget` (or null), an unbounded memory block.

`resolve` is the one function that turns an arm's settings and its reference's spend into a `MemoryBudget`; the
controller study's stage and design check and LongMemEval's evaluation all call it. What a budget counts is said
once too: `whole_prompt` (the controller study's `control.budget_scope: prompt`, paper 1's ~156 tokens/step) counts
the step's instruction and question with the memory block, so `MemoryBudget.for_step` leaves the block what the
step's fixed text does not take; otherwise the tokens are the block's alone. A controller only ever sees memory
tokens (`Query.budget`, `Controller.budget`).

Not this: `llm.budget` (the run's spending cap in dollars and tokens, tailmem.llm.budget) and a design plan's
`control.plan_budget_s` (core-seconds of predictor calls) are other caps under other names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from tailmem.errors import ConfigError

MATCHED = "matched"  # `memory.budget: matched`, and the arm-name part that asks for it (tailmem.memory.arm_names)
KEY = "budget"  # the memory settings' key (a field of memory.controllers.Controller)


class Spent(Protocol):
    """What a reference arm spent per step: a controller-study `ControlSummary` (or its `ReplayMetrics`) has both."""

    tokens_per_step: float  # the whole prompt's
    memory_tokens_per_step: float  # the memory block's


@dataclass(frozen=True)
class SpentPerStep:
    """A `Spent` measured in a job rather than read from a summary (LongMemEval's Graph Memory prompt, the design
    check's in-process Graph Memory replay)."""

    tokens_per_step: float
    memory_tokens_per_step: float


@dataclass(frozen=True)
class MemoryBudget:
    """An arm's budget in tokens (None: unbounded) and whether they count the whole prompt or the memory block."""

    tokens: int | None
    whole_prompt: bool = False

    @property
    def scope(self) -> str:
        """What the tokens count, as `ControlSummary.budget_scope` records it: "prompt" or "memory"."""
        return "prompt" if self.whole_prompt and self.tokens is not None else "memory"

    def for_step(self, fixed_tokens: int) -> int | None:
        """The memory block's tokens at a step whose instruction and question cost `fixed_tokens`: the whole
        prompt's budget minus them (never below 0) when the budget counts the whole prompt, else the budget."""
        if self.tokens is None or not self.whole_prompt:
            return self.tokens
        return max(int(self.tokens) - int(fixed_tokens), 0)


def problem(value) -> str | None:
    """What is wrong with a `memory.budget` value, or None: a whole number of tokens >= 1, null, or MATCHED."""
    if value is None or value == MATCHED:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return f"expected a whole number of tokens >= 1, null (unbounded) or {MATCHED!r} (the reference arm's tokens)"
    return None


def is_matched(settings: Mapping) -> bool:
    """Whether an arm's settings spend a reference arm's tokens (and so need its summary before they run)."""
    return settings.get(KEY) == MATCHED


def resolve(
    settings: Mapping, whole_prompt: bool = False, reference: Spent | None = None, ratio: float = 1.0
) -> MemoryBudget:
    """The budget of an arm with memory `settings`: their nominal `budget`, none, or, for MATCHED, `ratio` times
    the tokens per step `reference` spent (its whole prompt's when `whole_prompt`, else its memory block's),
    rounded to a whole token. A matched arm without a reference raises ConfigError naming what it needs."""
    value = settings.get(KEY)
    bad = problem(value)
    if bad:
        raise ConfigError(f"memory.{KEY}={value!r}: {bad}")
    if value != MATCHED:
        return MemoryBudget(None if value is None else int(value), whole_prompt)
    if reference is None:
        raise ConfigError(
            f"memory.{KEY}={MATCHED}: no reference arm's tokens to match (the controller study reads the Graph "
            "Memory arm's summary.json from control.matched_from; LongMemEval builds Graph Memory's prompt first)"
        )
    spent = reference.tokens_per_step if whole_prompt else reference.memory_tokens_per_step
    return MemoryBudget(int(round(float(ratio) * float(spent))), whole_prompt)


def controller_settings(settings: Mapping, budget: MemoryBudget) -> dict:
    """`settings` with the resolved tokens in place of `budget` (what memory.controllers.make_controller reads)."""
    return {**settings, KEY: budget.tokens}
