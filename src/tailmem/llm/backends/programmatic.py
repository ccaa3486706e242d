"""The no-model backend: its role is played by a programmatic agent, so any model call is a caller's mistake."""

from __future__ import annotations

from tailmem.errors import LLMError
from tailmem.roles import PROGRAMMATIC


def no_model(role: str, stage: str, agent: str, what: str) -> LLMError:
    return LLMError(
        f"role {role} (stage {stage}) has no model configured (llm.roles.{role}.backend={PROGRAMMATIC}); "
        f"{what} is unavailable: use the programmatic agent {agent!r}, or set llm.roles.{role}.backend"
    )


class ProgrammaticBackend:
    """Stands in the client's backend slot so every role has one; each call names the agent to use instead."""

    name = PROGRAMMATIC

    def __init__(self, settings, stage: str):
        self.settings, self.stage = settings, stage

    def _refuse(self, what: str) -> LLMError:
        return no_model(self.settings.role, self.stage, self.settings.label, what)

    def endpoint_id(self, model: str) -> str:
        raise self._refuse("an endpoint")

    def chat(self, model, messages, tools, params, on_send=None):
        raise self._refuse("chat()")

    def choose(self, prompt: str, options: list[str]):
        raise self._refuse("choose()")
