"""The language-model layer: one client per role over OpenAI-compatible, local, replay or programmatic backends,
with a call cache, token and cost accounting and a budget guard (DESIGN.md section 7)."""

from tailmem.llm.client import LLMClient, get_client
from tailmem.llm.records import ChatResponse, ToolCall, Usage
from tailmem.llm.tokens import count_tokens

__all__ = ["ChatResponse", "LLMClient", "ToolCall", "Usage", "count_tokens", "get_client"]
