"""Memory controllers: ranked candidate items -> a prompt within a token budget (paper 1 Tables 4-6).

Written once, reused by the graph world, LongMemEval and ALFWorld.
"""

from tailmem.memory.items import MemoryItem, MemoryStore, StepRecord
from tailmem.memory.prompt import Prompt
from tailmem.memory.tokens import TokenCounter

__all__ = ["MemoryItem", "MemoryStore", "StepRecord", "Prompt", "TokenCounter"]
