"""Which lines of a memory block hold the summarised tail, saved beside sampled blocks so a viewer (the run's
site, `tailmem.site`) can mark core and tail lines without rebuilding the block."""

from __future__ import annotations

from collections.abc import Mapping

from tailmem.memory.items import MemoryItem
from tailmem.memory.prompt import Prompt

CORE, TAIL = "c", "t"


def line_marks(prompt: Prompt, items: Mapping[int, MemoryItem]) -> str:
    """One letter per line of `prompt.text`: `t` where the line is the summary of an item the prompt placed in its
    tail, or its header line alone (the form CTMC's last room gives it), `c` for every other line (core headers
    and facts, history lines, a controller's note)."""
    tail = {line for i in prompt.tail if i in items for line in _tail_forms(items[i])}
    return "".join(TAIL if line in tail else CORE for line in prompt.text.split("\n"))


def _tail_forms(item: MemoryItem) -> tuple[str, ...]:
    """The lines a tail item may appear as: its summary, or its header in either encoding."""
    return (item.summary, *(lines[0] for lines in (item.compact, item.verbose) if lines))
