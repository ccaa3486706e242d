"""What a controller is asked for at one API-calling step."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    """The step, the item the agent is at, the items related to it (nearest first), and text to match."""

    step: int
    current: int | None = None
    related: tuple[int, ...] = ()
    text: str = ""
