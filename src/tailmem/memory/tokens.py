"""Token counting for budgets: the real tokenizer, memoised per line because items repeat every step."""

from __future__ import annotations

from collections.abc import Callable


class TokenCounter:
    """Counts tokens of text with `count` (default: tiktoken's o200k_base, offline), caching each string.

    A prompt is a join of lines; its count is taken as the sum of line counts plus one per newline, which
    matches the tokenizer on the whole text to within a token or two per line and costs a dict lookup.
    """

    def __init__(self, count: Callable[[str], int] | None = None, encoding: str = "o200k_base"):
        if count is None:
            from tailmem.llm import count_tokens

            def count(text: str, _enc=encoding) -> int:
                return count_tokens(text, _enc)

        self._count = count
        self._cache: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self._cache.get(text)
        if n is None:
            n = self._count(text)
            self._cache[text] = n
        return n

    def lines(self, lines) -> int:
        """Tokens of "\\n".join(lines), from cached per-line counts."""
        total = 0
        for line in lines:
            total += self(line) + 1
        return max(total - 1, 0)

    def exact(self, text: str) -> int:
        """The tokenizer's count on the whole text, uncached (for reporting, not for allocation)."""
        return self._count(text)
