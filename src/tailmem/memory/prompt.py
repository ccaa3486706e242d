"""What a controller returns: the memory block of a prompt and which items it placed there, how."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prompt:
    """The memory block of one API-calling step.

    `core` items appear with at least one fact; `tail` items appear only as their summary line, or their header
    line alone where CTMC's last room had space for no more. Both count as accessed (placed into context). `tokens` counts this block with the configured tokenizer.
    """

    text: str
    tokens: int
    core: tuple[int, ...]
    tail: tuple[int, ...] = ()
    controller: str = ""

    @property
    def accessed(self) -> tuple[int, ...]:
        return self.core + self.tail
