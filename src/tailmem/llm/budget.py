"""A per-run spending cap: once reached, new (uncached) calls stop with an LLMError; recorded calls stay cached.

Checked before each paid call against what this process has spent, so concurrent calls already in flight may
overshoot the cap by at most `concurrency` calls. Cache hits cost nothing and are never stopped.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from tailmem.errors import LLMError


class BudgetExceeded(LLMError):
    """The run's cap in dollars or tokens is spent."""


@dataclass
class Budget:
    max_dollars: float | None = None
    max_tokens: int | None = None
    dollars: float = 0.0
    tokens: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def check(self, role: str, stage: str) -> None:
        """Raise BudgetExceeded if the cap is already spent."""
        with self._lock:
            if self.max_dollars is not None and self.dollars >= self.max_dollars:
                raise BudgetExceeded(
                    f"role {role}, stage {stage}: budget llm.budget.max_dollars={self.max_dollars} spent "
                    f"(${self.dollars:.4f}); no new calls, recorded calls are kept in the cache"
                )
            if self.max_tokens is not None and self.tokens >= self.max_tokens:
                raise BudgetExceeded(
                    f"role {role}, stage {stage}: budget llm.budget.max_tokens={self.max_tokens} spent "
                    f"({self.tokens} tokens); no new calls, recorded calls are kept in the cache"
                )

    def spend(self, dollars: float, tokens: int) -> None:
        with self._lock:
            self.dollars += dollars
            self.tokens += tokens
