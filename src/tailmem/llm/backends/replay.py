"""Replay: answers only from the call cache, so a recorded run re-runs with no model and no network."""

from __future__ import annotations

from tailmem.errors import LLMError


class ReplayMiss(LLMError):
    """A request that was never recorded."""


def miss(role: str, stage: str, key: str, recorded_backend: str, model: str, cache_path) -> ReplayMiss:
    return ReplayMiss(
        f"replay miss in stage {stage}, role {role}: request {key} ({recorded_backend}/{model}) is not in "
        f"{cache_path}; record it first with a live backend or point llm.cache_path at the recording"
    )


class ReplayBackend:
    """The recorded backend's stand-in: it names the endpoint the recording names, and sends nothing (the client
    answers every request from the cache, or raises `miss` with the request's hash)."""

    name = "replay"

    def __init__(self, settings, cache, base: str):
        self.settings, self.cache, self.base = settings, cache, base

    def endpoint_id(self, model: str) -> str:
        """The endpoint the recording run wrote for `base` and `model`; `base#` where it wrote none."""
        recorded = self.cache.recorded_endpoint(self.base, model) if self.cache is not None else None
        return recorded or f"{self.base}#"

    def _refuse(self, what: str) -> ReplayMiss:
        s = self.settings
        return ReplayMiss(f"role {s.role}: backend replay sends no {what}; the client answers from the cache")

    def chat(self, model, messages, tools, params, on_send=None):
        raise self._refuse("chat request")

    def choose(self, prompt: str, options: list[str]):
        raise self._refuse("choice request")
