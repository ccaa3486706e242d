"""One client per role: it hashes each request, answers from the call cache when it can, and otherwise asks the
role's backend under the budget guard, recording the answer, its usage and its cost.

    client = get_client(cfg, roles.POLICY, stage="rollout")
    if not roles.plays_model(client): ... use the programmatic agent ...
    reply = client.chat([{"role": "user", "content": "..."}], tools=[...])

The request's sampling parameters come from the role's settings by model family (tailmem.llm.params); the
hash covers the endpoint (base URL + served model id, or llm.roles.<role>.endpoint_key) so another server never
answers from this one's recordings. Pay once: identical requests in flight in this process share one call, and
across processes the cache's pending claim makes a twin wait for the answer (tailmem.llm.cache).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import threading
from concurrent.futures import Future
from pathlib import Path

import tailmem.llm.choose as choosing
from tailmem import roles
from tailmem.errors import ConfigError, LLMError
from tailmem.lazy import resolve
from tailmem.llm.backends.base import Backend, ContextOverflow, kind_of, playing_kind
from tailmem.llm.backends.programmatic import ProgrammaticBackend, no_model
from tailmem.llm.backends.replay import ReplayBackend, miss
from tailmem.llm.budget import Budget
from tailmem.llm.cache import CallCache, request_hash
from tailmem.llm.cache_shards import ShardedCallCache, shards_dir
from tailmem.llm.cost import dollars
from tailmem.llm.group import role_settings
from tailmem.llm.group import settings as llm_settings
from tailmem.llm.pacing import pacer_for
from tailmem.llm.parallel import run_units, workers_for
from tailmem.llm.params import families, family_of, request_params
from tailmem.llm.records import ChatResponse
from tailmem.llm.tokens import count_message_tokens, count_tokens
from tailmem.settings.llm import LLMGroup, Role, cache_path, price, prices

log = logging.getLogger("tailmem.llm")
# An answer billed under this share of the client's prompt estimate means the server dropped part of the prompt
# (a system prompt or the tools it cannot render); estimates under SHORT_MIN_TOKENS are too small to judge.
SHORT_RATIO = 0.25
SHORT_MIN_TOKENS = 64
NUMBER_TOKENS = 4  # output cap of a reply decoded under the option numbers (as the embedded choose's)

# Identical requests in flight in this process: (cache file, request hash) -> the Future of the one paying call.
_flight_lock = threading.Lock()
_in_flight: dict[tuple, Future] = {}


def _join(key: tuple) -> tuple[bool, Future]:
    """(True, new future) for the first caller of `key`, (False, its future) for every twin while it runs."""
    with _flight_lock:
        if key in _in_flight:
            return False, _in_flight[key]
        fut: Future = Future()
        _in_flight[key] = fut
        return True, fut


def _leave(key: tuple) -> None:
    with _flight_lock:
        _in_flight.pop(key, None)


class LLMClient:
    """The one model interface every stage uses; see the module docstring."""

    def __init__(
        self,
        settings: Role,
        stage: str,
        llm: LLMGroup,
        cache: CallCache | ShardedCallCache | None,
        budget: Budget,
        backend_impl: Backend | None = None,
    ):
        self.settings = settings
        self.role = settings.role
        self.stage = stage
        self.backend = settings.backend
        self.model = settings.model or settings.label
        self.agent = settings.agent
        self.label = settings.label
        self.cache = cache
        self.budget = budget
        self._llm = llm
        self._prices = prices(llm)  # read once: `llm.prices_file` is a file
        self._impl = backend_impl
        self._kind = kind_of(self.backend)
        self._plays = playing_kind(settings)  # a replay re-computes the hashes the recording backend wrote
        self._hash_backend = self._plays.name
        self.family = family_of(self.model, families(llm), settings.family) if self._plays.served else None
        self._endpoint: str | None = None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.sent = 0  # HTTP requests this client sent (retries and failures included)
        self.short_prompts = 0  # answers billed far fewer prompt tokens than were sent
        self.call_params: dict = {}  # added to every chat request (`sampled`)

    def __repr__(self) -> str:
        return f"LLMClient(role={self.role!r}, stage={self.stage!r}, backend={self.backend!r}, model={self.model!r})"

    def sampled(self, seed: int) -> "LLMClient":
        """This client for replicate `seed` (seed > 0): every chat request carries `seed`, so a replicate is its own
        sample (own cache entries) rather than a replay of replicate 0; seed 0 is this client unchanged."""
        if int(seed) == 0:
            return self
        twin = copy.copy(self)
        twin._lock = threading.Lock()
        twin.call_params = {**self.call_params, "seed": int(seed)}
        return twin

    # -- request parameters and endpoint ------------------------------------------------------------------------
    def params(self, task: str | None = None) -> dict:
        """The sampling parameters of this role's requests (for `task`, e.g. restructure), by model family."""
        return request_params(self.settings, self.family or "standard", task)

    def endpoint(self) -> str:
        """The endpoint identity hashed into every request: endpoint_key, else base URL + served model id."""
        if self._endpoint is None:
            if self.settings.endpoint_key is not None:
                endpoint = str(self.settings.endpoint_key)
            else:
                endpoint = self._impl.endpoint_id(self.model)
                if self.cache is not None and not self._kind.replays:
                    self.cache.record_endpoint(endpoint_base(self.settings, self.model), self.model, endpoint)
            self._endpoint = endpoint
        return self._endpoint

    # -- the cached call -------------------------------------------------------------------------------------------
    def _hit(self, response: ChatResponse) -> ChatResponse:
        with self._lock:
            self.hits += 1
        self.cache.count_hit(self.role, self.stage)
        return response if response.from_cache else dataclasses.replace(response, from_cache=True)

    def _call(self, request: dict, run) -> ChatResponse:
        """Answer `request` from the cache, else via run() -> ChatResponse, recording it; each request is paid once."""
        key = request_hash(request)
        if self.cache is None:
            return run()
        hit = self.cache.get(key)
        if hit is not None:
            return self._hit(hit)
        if self._kind.replays:
            raise miss(self.role, self.stage, key, self._hash_backend, self.model, cache_path(self._llm))
        flight = (str(self.cache.path), key)
        first, fut = _join(flight)
        if not first:  # a twin in this process is paying for it
            return self._hit(fut.result())
        try:
            while True:
                state = self.cache.claim(key)
                if state == "owner":
                    response = self._pay(key, request, run)
                    break
                response = self.cache.get(key) if state == "done" else self.cache.wait(key)
                if response is not None:  # another process paid for it
                    response = self._hit(response)
                    break
            fut.set_result(response)
            return response
        except BaseException as exc:
            fut.set_exception(exc)
            raise
        finally:
            _leave(flight)

    def _pay(self, key: str, request: dict, run) -> ChatResponse:
        """Send the request (this process holds its claim), record the answer, release the claim on failure."""
        paid = self._kind.paid  # the budget guards billed calls; the embedded model is free
        try:
            if paid:
                self.budget.check(self.role, self.stage)
            response = run()
            cost = dollars(response.usage, price(self._prices, self.model)) if paid else 0.0
            if paid:
                self.budget.spend(cost, response.usage.total_tokens)
            self.cache.put(key, self.role, self.stage, self.backend, request, response, cost)
        except BaseException:
            self.cache.release(key)
            raise
        with self._lock:
            self.misses += 1
        return response

    def _sent(self) -> None:
        with self._lock:
            self.sent += 1
        if self.cache is not None:
            self.cache.bump(self.role, self.stage, "sent")

    def _paced_send(self, messages: list[dict], tools: list[dict] | None, params: dict):
        """(on_send, settle) for one call: on_send counts each HTTP request and, under llm.roles.<role>.
        requests_per_minute / tokens_per_minute, holds it until the endpoint's minute has room (retries too);
        settle(response) replaces the reserved tokens with the billed ones. (A request that timed out waiting for its
        answer is never sent again: the backend says so, `openai_backend.timeouts`.)"""
        s = self.settings
        pacer = None
        if self._kind.served:
            pacer = pacer_for(
                getattr(self._impl, "base_url", ""), self.model, s.requests_per_minute, s.tokens_per_minute
            )
        reserve = 0
        if pacer is not None and pacer.tpm is not None:
            reserve = count_message_tokens(messages, self._llm.encoding)
            reserve += count_tokens(json.dumps(tools), self._llm.encoding) if tools else 0
            reserve += int(params.get("max_completion_tokens") or params.get("max_tokens") or 0)
        entries: list = []  # the pacer's reservation of each send; the last one is settled

        def on_send() -> None:
            entries.append(pacer.acquire(reserve) if pacer is not None else None)
            self._sent()

        def settle(response: ChatResponse) -> None:
            if entries and entries[-1] is not None:
                pacer.settle(entries[-1], response.usage.total_tokens)

        return on_send, settle

    def _check_prompt(self, messages: list[dict], tools: list[dict] | None, response: ChatResponse) -> None:
        """Flag an answer billed far fewer prompt tokens than were sent: the server dropped part of the prompt."""
        estimate = count_message_tokens(messages, self._llm.encoding)
        if tools:
            estimate += count_tokens(json.dumps(tools), self._llm.encoding)
        billed = response.usage.prompt_tokens
        if estimate >= SHORT_MIN_TOKENS and billed < SHORT_RATIO * estimate:
            with self._lock:
                self.short_prompts += 1
            if self.cache is not None:
                self.cache.bump(self.role, self.stage, "short_prompts")
            log.warning(
                "role %s, stage %s, model %s: billed %d prompt tokens for about %d sent%s; the server "
                "dropped part of the prompt (check its chat format / template)",
                self.role,
                self.stage,
                self.model,
                billed,
                estimate,
                " with tools" if tools else "",
            )

    @property
    def chats(self) -> bool:
        """Whether the role's model holds a chat (every backend but the scoring-only base model, `local`)."""
        return self._plays.chats

    @property
    def constrains_answers(self) -> bool:
        """Whether a chat may name its allowed answers (`answer_choices`) and have the reply decoded under them:
        the embedded model's grammar. Other backends answer freely and the caller parses the reply."""
        return self._plays.constrains_answers

    # -- the contract ----------------------------------------------------------------------------------------------
    def chat(
        self, messages: list[dict], tools: list[dict] | None = None, task: str | None = None, **params
    ) -> ChatResponse:
        """A chat completion in OpenAI wire format (messages, function tools). The role's family decides the
        sampling parameters (`task` picks a task's output cap); call params (e.g. seed) are added on top."""
        if not self._kind.plays_model:
            raise no_model(self.role, self.stage, self.label, "chat()")
        if not self._plays.chats:
            raise LLMError(
                f"role {self.role} (stage {self.stage}): backend {self._hash_backend} runs a base model that cannot "
                f"chat or call tools; use choose(), a programmatic agent, or an openai backend"
            )
        merged = {**self.params(task), **self.call_params, **params}
        request = {
            "backend": self._hash_backend,
            "endpoint": self.endpoint(),
            "model": self.model,
            "messages": messages,
            "tools": tools or None,
            "params": merged,
        }

        def run() -> ChatResponse:
            on_send, settle = self._paced_send(messages, tools, merged)
            try:
                response = self._impl.chat(self.model, messages, tools, merged, on_send=on_send)
            except ContextOverflow as exc:  # the backend knows the role and the tokens, the client the stage
                raise ContextOverflow(f"stage {self.stage}, {exc}") from exc
            settle(response)
            if not self._plays.counts_tokens_exactly:  # a server's bill may show it dropped part of the prompt
                self._check_prompt(messages, tools, response)
            return response

        return self._call(request, run)

    def choose(self, prompt: str, options: list[str]) -> int:
        """The index of the chosen option; always valid. Local: highest log-probability; chat: asks for a number."""
        if not options:
            raise LLMError(f"role {self.role} (stage {self.stage}): choose() needs at least one option")
        if not self._kind.plays_model:
            raise no_model(self.role, self.stage, self.label, "choose()")
        if len(options) == 1:
            return 0
        if self._plays.chooses:
            request = {
                "backend": self._hash_backend,
                "model": self.model,
                "choose": {"prompt": prompt, "options": options},
            }
            if self._plays.names_endpoint:
                request["endpoint"] = self.endpoint()

            def run() -> ChatResponse:
                index, usage, latency = self._impl.choose(prompt, options)
                return ChatResponse(str(index), (), usage, self.model, False, latency)

            index = int(self._call(request, run).content)
            return index if 0 <= index < len(options) else 0
        return self.choose_in_chat([{"role": "user", "content": choosing.question(prompt, options)}], options)[0]

    def choose_in_chat(self, messages: list[dict], options: list[str]) -> tuple[int, list[str]]:
        """(index of the chosen option, the replies read) for a chat whose last user turn lists `options` by
        number; always a valid index.

        A model that decodes under named answers (the embedded grammar, a served role's structured outputs) is
        sent the numbers 1..n as its only answers (and NUMBER_TOKENS as its output cap); any other answers freely and is re-asked
        (llm.roles.<role>.choose_retries) while its reply names no option, the last reply then read by word
        overlap. Each reply is a chat request keyed by the whole chat, so a re-run replays it from the cache.
        A reply in `replies` that `choose.parse` cannot read is one the model got wrong (malformed or out of
        range)."""
        if not options:
            raise LLMError(f"role {self.role} (stage {self.stage}): choose_in_chat() needs at least one option")
        extra: dict = {}
        if self.constrains_answers:
            extra["answer_choices"] = [str(i) for i in range(1, len(options) + 1)]
            if "max_tokens" in self.params():  # a number takes a token or two: the role's cap would only hold
                extra["max_tokens"] = NUMBER_TOKENS  # context back (the embedded model reserves it in n_ctx)
        replies: list[str] = []
        for _ in range(self.settings.choose_retries + 1):
            reply = self.chat(messages, **extra).content or ""
            replies.append(reply)
            index = choosing.parse(reply, options)
            if index is not None:
                return index, replies
            messages = [
                *messages,
                {"role": "assistant", "content": reply},
                {"role": "user", "content": choosing.reask(len(options))},
            ]
        index = choosing.closest(replies[-1], options)
        log.warning(
            "role %s, stage %s: no option number in %r after %d re-asks; chose %d by word overlap",
            self.role,
            self.stage,
            replies[-1],
            self.settings.choose_retries,
            index,
        )
        return index, replies

    def chat_many(self, requests: list[dict]) -> list[ChatResponse]:
        """Many independent chats, at most `concurrency` at once (one at a time for an in-process model:
        tailmem.llm.parallel), answers in request order.

        Each request is a dict of chat() arguments: messages, optional tools, and any params. Every call that
        finishes is recorded even if another fails; the first failure (in request order) is then raised.
        """
        if not requests:
            return []

        def one(req: dict) -> ChatResponse:
            req = dict(req)
            try:
                messages = req.pop("messages")
            except KeyError:
                raise LLMError(f"role {self.role} (stage {self.stage}): chat_many request without `messages`") from None
            return self.chat(messages, req.pop("tools", None), **req)

        return run_units(one, requests, self.workers(len(requests)), name=f"llm-{self.role}")

    def workers(self, units: int) -> int:
        """Threads for `units` independent units of this role (tailmem.llm.parallel.workers_for)."""
        return workers_for(self, units)

    @property
    def retries(self) -> int:
        """Retried attempts so far (openai backend)."""
        return getattr(self._impl, "retries", 0)


# -- construction ------------------------------------------------------------------------------------------------
_shared_lock = threading.Lock()
_caches: dict[Path, CallCache | ShardedCallCache] = {}
_budgets: dict[tuple, Budget] = {}


def _cache(llm: LLMGroup) -> CallCache | ShardedCallCache:
    """The one cache object of this process for `llm.cache_path`, in its configured layout."""
    if llm.cache_layout == "shards":
        key = shards_dir(cache_path(llm)).resolve()
        make = ShardedCallCache
    else:
        key, make = cache_path(llm).resolve(), CallCache
    with _shared_lock:
        if key not in _caches:
            _caches[key] = make(key)
        return _caches[key]


def _budget(llm: LLMGroup) -> Budget:
    """One budget per run (process) and cache, shared by all roles and stages."""
    dollars_cap, tokens_cap = llm.budget.max_dollars, llm.budget.max_tokens
    dollars_cap = None if dollars_cap is None else float(dollars_cap)
    tokens_cap = None if tokens_cap is None else int(tokens_cap)
    key = (cache_path(llm).resolve(), dollars_cap, tokens_cap)
    with _shared_lock:
        if key not in _budgets:
            _budgets[key] = Budget(dollars_cap, tokens_cap)
        return _budgets[key]


def endpoint_base(settings: Role, model: str) -> str:
    """What a recorded endpoint is filed under: the server's base URL, or `embedded://<model>` for weights in this
    process, which have no URL (their endpoint id is the weights' sha256)."""
    if playing_kind(settings).embedded:
        return f"embedded://{model}"
    from tailmem.llm.backends.openai_backend import base_url_of

    return base_url_of(settings)


def _backend(settings: Role, llm: LLMGroup):
    """The role's model, opened by its kind's row (`Kind.build`); None for the stand-ins, which wrap the call cache
    (made once it is open)."""
    kind = kind_of(settings.backend)
    if kind.build is None:
        return None
    if kind.paid:
        price(prices(llm), settings.model)  # fail now, not after the first paid call
    return resolve(kind.build)(settings, llm)


def _stand_in(settings: Role, stage: str, cache) -> Backend:
    """The backend of a role no model is loaded for: a replay of the recording in `cache`, or the no-model one."""
    if kind_of(settings.backend).replays:
        return ReplayBackend(settings, cache, endpoint_base(settings, settings.model or settings.label))
    return ProgrammaticBackend(settings, stage)


def answers_constrained(cfg, role: str) -> bool:
    """Whether `role` answers only with an option its caller names (the embedded model's grammar, the scoring
    backend's choice, a programmatic rule), read from the config without loading a model: a plan may then know
    an answer without a call (a next-state predictor cannot name a state its prompt does not)."""
    return playing_kind(role_settings(llm_settings(cfg), role)).answers_within_options


def get_client(cfg, role: str, stage: str) -> LLMClient:
    """The client for `role` in `stage`, configured by `cfg.llm` (cfg is the whole resolved config)."""
    if role not in roles.ROLES:
        raise ConfigError(f"unknown role {role!r}; expected one of {roles.ROLES}")
    llm = llm_settings(cfg)
    settings = role_settings(llm, role)
    backend = _backend(settings, llm)  # first: a model that cannot load must not leave an empty cache file behind
    cache = _cache(llm) if kind_of(settings.backend).plays_model else None
    if backend is None:
        backend = _stand_in(settings, stage, cache)
    return LLMClient(settings, stage, llm, cache, _budget(llm), backend)
