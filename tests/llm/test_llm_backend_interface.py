"""Every backend satisfies the one interface the client calls (tailmem.llm.backends.base), each kind's traits cover
every backend the settings accept, and reading traits instead of backend names left the request hashes as they
were: the hashes below were computed by the client that branched on names, so a recorded cache still answers."""

import dataclasses
import inspect

import pytest

import tailmem.llm.client as client_mod
from llm_testkit import llm_cfg
from tailmem.errors import LLMError
from tailmem.lazy import resolve
from tailmem.llm.backends.base import KINDS, Backend, Chooser, ContextOverflow, kind_of
from tailmem.llm.backends.instruct import InstructBackend
from tailmem.llm.backends.local import LocalBackend
from tailmem.llm.backends.openai_backend import OpenAIBackend
from tailmem.llm.backends.programmatic import ProgrammaticBackend
from tailmem.llm.backends.replay import ReplayBackend
from tailmem.llm.budget import Budget
from tailmem.llm.cache import CallCache, request_hash
from tailmem.llm.group import role_settings, settings
from tailmem.llm.records import ChatResponse, Usage
from tailmem.roles import PROGRAMMATIC, SEARCHER
from tailmem.settings.llm import cache_path

CLASSES = (OpenAIBackend, LocalBackend, InstructBackend, ReplayBackend, ProgrammaticBackend)
CHAT_ARGS = ["self", "model", "messages", "tools", "params", "on_send"]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_backend_class_has_the_interface(cls):
    """Checked on the class, so the embedded and local models need not load: every member of `Backend`, and a
    `chat` that takes what the client passes."""
    assert cls.name in KINDS
    for member in ("name", "endpoint_id", "chat"):
        assert hasattr(cls, member), f"{cls.__name__} lacks {member}"
    assert list(inspect.signature(cls.chat).parameters) == CHAT_ARGS
    if kind_of(cls.name).chooses:
        assert list(inspect.signature(cls.choose).parameters) == ["self", "prompt", "options"]


def test_every_backend_name_has_a_class_and_traits():
    assert {cls.name for cls in CLASSES} == set(KINDS)
    assert issubclass(ContextOverflow, LLMError)


@pytest.mark.parametrize("kind", list(KINDS.values()), ids=lambda k: k.name)
def test_every_row_opens_its_backend_or_is_a_stand_in(kind):
    """A row that loads a model names a callable taking (settings, llm) in its backend's module (resolved, not
    called, so no model loads); the stand-ins the client makes itself (a replay, the no-model one) name none."""
    if kind.replays or not kind.plays_model:
        assert kind.build is None
        return
    opener = resolve(kind.build)
    assert list(inspect.signature(opener).parameters) == ["settings", "llm"]
    assert opener.__module__ == next(cls.__module__ for cls in CLASSES if cls.name == kind.name)


def test_the_stand_ins_are_backends_at_run_time(tmp_path):
    llm = settings(llm_cfg(tmp_path, "http://127.0.0.1:9/v1"))
    s = role_settings(llm, SEARCHER)
    programmatic = ProgrammaticBackend(dataclasses.replace(s, backend=PROGRAMMATIC), "my_stage")
    replay = ReplayBackend(dataclasses.replace(s, backend="replay"), None, "http://127.0.0.1:9/v1")
    for b in (programmatic, replay):
        assert isinstance(b, Backend) and isinstance(b, Chooser)
    assert replay.endpoint_id("test-model") == "http://127.0.0.1:9/v1#"
    with pytest.raises(LLMError, match="stage my_stage"):
        programmatic.chat("m", [], None, {})


class Fake:
    """A backend of any kind that answers at once, so the client's requests can be hashed without a model."""

    def __init__(self, name: str):
        self.name = name

    def endpoint_id(self, model: str) -> str:
        return f"fake:{model}"

    def chat(self, model, messages, tools, params, on_send=None):
        if on_send is not None:
            on_send()
        return ChatResponse("ok", (), Usage(10, 0, 1), model, False, 0.0)

    def choose(self, prompt, options):
        return 1, Usage(5, 0, 1), 0.0


# sha256 request hashes as the client wrote them when it branched on backend names (main at 267f39c)
PINNED = {
    "openai chat": "3d53c87de23da16f8264b87b70dbad3298059f034dd006fadf66b8166c8eeb1d",
    "instruct chat": "bdce5a2313149c756480dd7a955685b9ea3e99c17626ab285185dfe7d77a2937",
    "instruct choose": "74e51d25b36863f466f55b2feb5453bd947c0da492242b06aae82d87af8f5006",
    "local choose": "8fa739537283075f8d7d1f7546be29fce6fcdaa6bde639c4ec767fd870e40135",
}


def test_request_hashes_are_unchanged(tmp_path, monkeypatch):
    seen: list[str] = []

    def record(request):
        key = request_hash(request)
        seen.append(key)
        return key

    monkeypatch.setattr(client_mod, "request_hash", record)
    llm = settings(llm_cfg(tmp_path, "http://127.0.0.1:9/v1"))
    cache = CallCache(cache_path(llm))
    budget = Budget(None, None)
    base = role_settings(llm, SEARCHER)
    messages = [{"role": "user", "content": "hello"}]
    got = {}

    def client(backend, recorded="openai"):
        s = dataclasses.replace(base, backend=backend, recorded_backend=recorded)
        impl = client_mod._stand_in(s, "stage", cache) if backend == "replay" else Fake(backend)
        return client_mod.LLMClient(s, "stage", llm, cache, budget, impl)

    client("openai").chat(messages)
    got["openai chat"] = seen[-1]
    client("instruct").chat(messages)
    got["instruct chat"] = seen[-1]
    client("instruct").choose("pick", ["a", "b"])
    got["instruct choose"] = seen[-1]
    client("local").choose("pick", ["a", "b"])
    got["local choose"] = seen[-1]
    # a replay of the embedded model's recording finds its endpoint and its answers
    assert client("replay", "instruct").chat(messages).from_cache
    assert seen[-1] == got["instruct chat"]
    assert client("replay", "instruct").choose("pick", ["a", "b"]) == 1
    assert seen[-1] == got["instruct choose"]
    assert got == PINNED
