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
