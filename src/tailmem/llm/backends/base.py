"""What the LLM client asks of a backend, what it may assume of each kind of backend, and the errors any raises.

The client (tailmem.llm.client) sends every request through this interface and reads each kind's traits instead
of testing a backend's name, so a new backend is a class and one `Kind` row, not a branch in every method. The
traits are known from the config alone: a plan reads them without loading a model (`answers_within_options`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from tailmem.errors import LLMError
from tailmem.llm.records import ChatResponse, Usage
from tailmem.roles import PROGRAMMATIC


class ContextOverflow(LLMError):
    """A prompt that does not fit the model's context window (the client adds the stage). Callers that run many
    items catch it to lose one item, not the stage."""


@runtime_checkable
class Backend(Protocol):
    """One role's model: it answers one request at a time, and names the endpoint its answers come from."""

    name: str

    def endpoint_id(self, model: str) -> str:
        """The endpoint's identity in the request hashes (a server and the model it serves, or the weights), so
        another endpoint never answers from this one's recordings."""
        ...

    def chat(
        self, model: str, messages: list[dict], tools: list[dict] | None, params: dict, on_send=None
    ) -> ChatResponse:
        """One chat completion in OpenAI wire format; `on_send()` runs before every request actually sent."""
        ...


@runtime_checkable
class Chooser(Protocol):
    """A backend that picks one of a prompt's options itself (by log-probability or under a grammar) rather than
    through a chat reply the client parses."""

    def choose(self, prompt: str, options: list[str]) -> tuple[int, Usage, float]:
        """(index of the chosen option, usage, latency in seconds)."""
        ...


@dataclass(frozen=True)
class Kind:
    """What the client may assume of a kind of backend. A replay behaves as the backend it recorded, except that
    it answers only from the cache (`replays`)."""

    name: str
    plays_model: bool = True  # False: a programmatic agent plays the role; any model call is the caller's mistake
    replays: bool = False  # answers only from recorded calls
    chats: bool = True  # False: a base model that scores options but cannot chat or call tools
    chooses: bool = False  # picks an option itself (Chooser) instead of asking for a number in a chat
    constrains_answers: bool = False  # a chat may name its allowed answers (`answer_choices`), decoded under them
    answers_within_options: bool = False  # never answers outside the options its caller names
    counts_tokens_exactly: bool = True  # False: a server's bill, checked against the prompt the client sent
    names_endpoint: bool = True  # its requests' hashes carry endpoint_id (a local choice is keyed by model alone)
    embedded: bool = False  # weights in this process: its endpoint has no URL
    served: bool = False  # a server shared by the jobs of a run: model-family parameters, pacing, llm_slots
    paid: bool = False  # billed: the budget guard checks and spends every call


KINDS = {
    k.name: k
    for k in (
        Kind(PROGRAMMATIC, plays_model=False, answers_within_options=True),
        Kind("openai", counts_tokens_exactly=False, served=True, paid=True),
        Kind("local", chats=False, chooses=True, answers_within_options=True, names_endpoint=False, embedded=True),
        Kind("instruct", chooses=True, constrains_answers=True, answers_within_options=True, embedded=True),
        Kind("replay", replays=True),
    )
}
BACKENDS = tuple(KINDS)


def kind_of(backend: str) -> Kind:
    """The traits of `backend` (one of BACKENDS; the settings refuse any other name)."""
    return KINDS[backend]


# What a served model gains under the embedded backend's constraints (`structured_outputs`, llm=served): the server
# decodes an option number, an answer among named choices, a call of an offered tool, as the embedded model does.
UNDER_CONSTRAINTS = {"chooses": True, "constrains_answers": True, "answers_within_options": True}


def playing_kind(settings) -> Kind:
    """The kind whose requests a role's calls are: the recorded backend's for a replay, else its own; with the
    constrained traits where the role's server decodes under the embedded backend's rules (`structured_outputs`).
    The name stays the backend's, so the request hashes name the backend that answered."""
    kind = kind_of(settings.backend)
    kind = kind_of(settings.recorded_backend) if kind.replays else kind
    if getattr(settings, "structured_outputs", None) and kind.plays_model:
        kind = replace(kind, **UNDER_CONSTRAINTS)
    return kind
