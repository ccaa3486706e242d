"""What a controller is asked for at one API-calling step."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    """The step, the item the agent is at, the items related to it (nearest first), and text to match.

    `budget`, when set, is this step's cap on the memory block and replaces the controller's own: a caller whose
    budget counts the whole prompt (the controller study) passes what the fixed text of this step leaves.
    """

    step: int
    current: int | None = None
    related: tuple[int, ...] = ()
    text: str = ""
    budget: int | None = None
