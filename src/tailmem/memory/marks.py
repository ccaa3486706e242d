"""Which lines of a memory block hold the summarised tail, saved beside sampled blocks so a viewer (the run's
site, `tailmem.site`) can mark core and tail lines without rebuilding the block."""

from __future__ import annotations

from collections.abc import Mapping

from tailmem.memory.items import MemoryItem
from tailmem.memory.prompt import Prompt

CORE, TAIL = "c", "t"


def line_marks(prompt: Prompt, items: Mapping[int, MemoryItem]) -> str:
    """One letter per line of `prompt.text`: `t` where the line is the summary of an item the prompt placed in its
    tail, `c` for every other line (core headers and facts, history lines, a controller's note)."""
    tail = {items[i].summary for i in prompt.tail if i in items}
    return "".join(TAIL if line in tail else CORE for line in prompt.text.split("\n"))
