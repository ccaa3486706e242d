"""What one model call returns: frozen records shared by every backend, the cache and the accounting."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for; `arguments` is already JSON-decoded."""

    id: str
    name: str
    arguments: dict


@dataclass(frozen=True)
class Usage:
    """Tokens billed for one call; `prompt_tokens` includes the `cached_tokens` served from the provider's cache."""

    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int

    @property
    def uncached_tokens(self) -> int:
        return self.prompt_tokens - self.cached_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


ZERO_USAGE = Usage(0, 0, 0)


@dataclass(frozen=True)
class ChatResponse:
    """A model's answer. `from_cache` says whether this run paid for it; `latency_s` is the recorded call's latency."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]
    usage: Usage
    model: str
    from_cache: bool
    latency_s: float

    def to_json(self) -> dict:
        """The cacheable part (no `from_cache`), JSON-ready."""
        return {
            "content": self.content,
            "tool_calls": [asdict(t) for t in self.tool_calls],
            "usage": asdict(self.usage),
            "model": self.model,
            "latency_s": self.latency_s,
        }

    @classmethod
    def from_json(cls, data: dict, from_cache: bool) -> "ChatResponse":
        return cls(
            content=data.get("content"),
            tool_calls=tuple(ToolCall(**t) for t in data.get("tool_calls", [])),
            usage=Usage(**data["usage"]),
            model=data["model"],
            from_cache=from_cache,
            latency_s=float(data.get("latency_s", 0.0)),
        )
