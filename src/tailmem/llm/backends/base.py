"""What the LLM client asks of a backend, what it may assume of each kind of backend, and the errors any raises.

The client (tailmem.llm.client) opens a role's backend from its kind's row (`Kind.build`) and reads each kind's
traits instead of testing a backend's name, so a new backend is its module and one `Kind` row in `KINDS`, not a
branch in the client or in a caller (docs/extending.md, "A backend"). The traits are known from the config alone: a
plan reads them without loading a model (`answers_within_options`), and the settings accept exactly the names
`KINDS` registers.

A row names its backend's code by a "module:callable" string, imported when a role is opened, so reading the
traits loads no model library. A backend module therefore imports neither this module nor the settings (it takes
the role's record as it is given, and raises `tailmem.errors.ContextOverflow`): the first would close a loop
through the string (tests/test_layers.py), and the role's record is all of the settings it reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from tailmem.errors import ContextOverflow as ContextOverflow  # the error any backend may raise, for its callers
from tailmem.llm.records import ChatResponse, Usage
from tailmem.roles import PROGRAMMATIC


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
    """What the client may assume of a kind of backend, and how it opens one. A replay behaves as the backend it
    recorded, except that it answers only from the cache (`replays`)."""

    name: str  # the value of llm.roles.<role>.backend
    # "module:callable" opening the backend for a role: callable(settings: Role, llm: LLMGroup) -> Backend, imported
    # when a role is opened. None: a stand-in the client makes itself (a replay of the cache, the no-model one)
    build: str | None = None
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
        Kind(
            "openai",
            build="tailmem.llm.backends.openai_backend:open_backend",
            counts_tokens_exactly=False,
            served=True,
            paid=True,
        ),
        Kind(
            "local",
            build="tailmem.llm.backends.local:open_backend",
            chats=False,
            chooses=True,
            answers_within_options=True,
            names_endpoint=False,
            embedded=True,
        ),
        Kind(
            "instruct",
            build="tailmem.llm.backends.instruct:open_backend",
            chooses=True,
            constrains_answers=True,
            answers_within_options=True,
            embedded=True,
        ),
        Kind("replay", replays=True),
    )
}


def kind_of(backend: str) -> Kind:
    """The traits of `backend` (a name `KINDS` registers; the settings refuse any other)."""
    return KINDS[backend]


# What a served model gains under the embedded backend's constraints (`structured_outputs`, llm=served): the server
# decodes an option number, an answer among named choices, a call of an offered tool, as the embedded model does.
UNDER_CONSTRAINTS = {"chooses": True, "constrains_answers": True, "answers_within_options": True}


def playing_kind(settings) -> Kind:
    """The kind whose requests a role's calls are: the recorded backend's for a replay, else its own; with the
    constrained traits where the role's server decodes under the embedded backend's rules (`structured_outputs`).
    The name stays the backend's, so the request hashes name the backend that answered."""
    kind = kind_of(settings.backend)
    recorded = kind_of(settings.recorded_backend) if kind.replays else None
    return _played(kind, recorded, getattr(settings, "structured_outputs", None))


def client_kind(client) -> Kind:
    """The kind a role's client plays (`playing_kind` of its settings), for a caller that adapts to it: read off the
    client's `backend` and `settings`, so a caller's own stand-in that names only a backend answers too. A name no
    row registers is a plain chat model (no trait beyond chatting); no client is the programmatic kind."""
    if client is None:
        return KINDS[PROGRAMMATIC]
    backend = getattr(client, "backend", PROGRAMMATIC)
    settings = getattr(client, "settings", None)
    kind = KINDS.get(backend) or Kind(backend)
    recorded = KINDS.get(getattr(settings, "recorded_backend", None)) if kind.replays else None
    return _played(kind, recorded, getattr(settings, "structured_outputs", None))


def _played(kind: Kind, recorded: Kind | None, structured_outputs) -> Kind:
    """`kind` as a role plays it: a replay as the kind it `recorded`, a model under `structured_outputs` with the
    constrained traits."""
    kind = recorded if kind.replays and recorded is not None else kind
    if structured_outputs and kind.plays_model:
        kind = replace(kind, **UNDER_CONSTRAINTS)
    return kind
