"""What a controller is asked for at one API-calling step."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    """The step, the item the agent is at, the items related to it (nearest first), and text to match.

    `budget`, when set, is this step's cap on the memory block in tokens and replaces the controller's own: the
    controller study's replay passes `MemoryBudget.for_step` (tailmem.memory.budget), what a whole-prompt budget
    leaves the block once this step's instruction and question are counted.
    """

    step: int
    current: int | None = None
    related: tuple[int, ...] = ()
    text: str = ""
    budget: int | None = None
