"""The no-model backend: its role is played by a programmatic agent, so any model call is a caller's mistake."""

from __future__ import annotations

from tailmem.errors import LLMError


def no_model(role: str, stage: str, agent: str, what: str) -> LLMError:
    return LLMError(
        f"role {role} (stage {stage}) has no model configured (llm.roles.{role}.backend=programmatic); "
        f"{what} is unavailable: use the programmatic agent {agent!r}, or set llm.roles.{role}.backend"
    )
