"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, ollama, a llama.cpp server) through the `openai` package.

Retries are ours, not the SDK's (its max_retries is 0), so they are counted and their backoff is set in config:
429, 5xx, a connection that could not be made and one the server dropped wait backoff_s * 2^attempt (jittered,
capped, or the server's Retry-After) and try again; any other error fails at once with the role, model and status in
the message. A request that timed out waiting for its answer is never sent again: the server may still be working
on it, and a copy would wait in its queue behind the original (under load, the queue fills with copies). A 5xx
whose body is a request-validation error (llama.cpp's server answers a malformed request with a 500) is the
request's fault, so it fails at once too: the same request would fail the same way every time. A 400 naming a
parameter the model refuses names the config key that put it there (tailmem.llm.params).

A role whose preset states the server's decoding slots (`server_slots`, tailmem.llm.slots) holds one of them for
each request, so no more of its requests are in flight than the server decodes at once, and waits for the answer
as long as it takes (no read time-out: the request it sent is the one being decoded).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import random
import re
import threading
import time

from tailmem.errors import LLMError
from tailmem.llm import structured
from tailmem.llm.params import config_key, families, family_of, refused_parameter
from tailmem.llm.records import ChatResponse, ToolCall, Usage
from tailmem.llm.slots import slots_for
from tailmem.llm.tokens import count_message_tokens, count_tokens

log = logging.getLogger("tailmem.llm")
OPENAI_URL = "https://api.openai.com/v1"
# What a server's 5xx says when it is really rejecting the request (pydantic, jinja chat templates, llama.cpp).
VALIDATION = re.compile(
    r"validation|validat(e|ing)|invalid|unsupported|not supported|input should|field required|"
    r"is required|missing|extra inputs|template|jinja|must (be|alternate)|expected (a|an|one)",
    re.I,
)
CONTEXT_KEYS = ("context_window", "context_length", "max_model_len", "n_ctx", "max_context_length")


def base_url_of(settings) -> str:
    """The endpoint a role talks to: its base_url, else $OPENAI_BASE_URL, else OpenAI's; no trailing slash."""
    return (settings.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")


# The time-outs of a request the server has (or is being sent): httpx's, and httpx2's (openai 3 sends with it).
UNANSWERED = frozenset({"ReadTimeout", "WriteTimeout"})


def unanswered(exc: Exception) -> bool:
    """Whether a request failed by timing out while waiting for its answer (sent, perhaps being decoded), rather
    than before the server had it (connecting, waiting for a pooled connection) or by a dropped connection. By the
    HTTP error's class names, the same in httpx and httpx2, whichever the SDK wraps."""
    cause = exc.__cause__
    return cause is not None and any(c.__name__ in UNANSWERED for c in type(cause).__mro__)


def timeouts(settings):
    """The HTTP time-outs of a role: `timeout_s` for each phase, but no read time-out where the preset states the
    server's slots (`server_slots`): the request holds a slot, so the server is decoding it."""
    import openai

    read = None if settings.server_slots is not None else settings.timeout_s
    return openai.Timeout(settings.timeout_s, read=read)


def validation_error(exc: Exception) -> bool:
    """Whether a 5xx carries a request-validation error rather than a server fault."""
    body = getattr(exc, "body", None)
    text = json.dumps(body) if body is not None else str(exc)
    return bool(VALIDATION.search(text))


class OpenAIBackend:
    name = "openai"

    def __init__(self, settings, encoding: str = "o200k_base", family: str = "standard"):
        import openai

        self.settings = settings
        self.encoding = encoding
        self.family = family
        self.base_url = base_url_of(settings)
        self._served: dict | None = None
        key = settings.api_key or os.environ.get(settings.api_key_env)
        if not key:
            if self.base_url.rstrip("/") == OPENAI_URL:
                raise LLMError(
                    f"role {settings.role}: no API key; set ${settings.api_key_env} "
                    f"(llm.roles.{settings.role}.api_key_env) to call {OPENAI_URL}"
                )
            key = "unused"  # local servers (vLLM, ollama, llama.cpp) ignore the key
        self._openai = openai
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=timeouts(settings), max_retries=0)
        self._slots = slots_for(self.base_url, settings.server_slots)
        self._retryable = (
            openai.RateLimitError,
            openai.InternalServerError,
            openai.APITimeoutError,
            openai.APIConnectionError,
        )
        self._lock = threading.Lock()
        self.retries = 0  # retried attempts, for tests and logs

    # -- what the server says about itself -------------------------------------------------------------------------
    def served(self, model: str) -> dict:
        """The server's /models entry for `model` (or its only model), {} if it lists none; asked once."""
        with self._lock:
            if self._served is not None:
                return self._served
        entry: dict = {}
        try:
            listed = [m.model_dump() if hasattr(m, "model_dump") else dict(m) for m in self._client.models.list()]
            same = [m for m in listed if m.get("id") == model]
            entry = same[0] if same else (listed[0] if len(listed) == 1 else {})
        except Exception as exc:  # many servers have no /models; the base URL alone then names the endpoint
            log.debug("role %s: %s/models unavailable (%s)", self.settings.role, self.base_url, exc)
        with self._lock:
            self._served = entry
        return entry

    def endpoint_id(self, model: str) -> str:
        """Cache identity of the endpoint: base URL and the id of the model it serves."""
        return f"{self.base_url}#{self.served(model).get('id', '')}"

    def context_window(self, model: str) -> int | None:
        """The context window where the server reports one (vLLM's max_model_len, llama.cpp's n_ctx...)."""
        entry = self.served(model)
        for source in (entry, entry.get("meta") or {}, entry.get("status") or {}):
            for k in CONTEXT_KEYS:
                if isinstance(source, dict) and isinstance(source.get(k), int):
                    return int(source[k])
        return None

    def _wait(self, attempt: int, exc: Exception) -> float:
        s = self.settings
        wait = min(s.backoff_max_s, s.backoff_s * 2**attempt) * (0.5 + random.random() / 2)
        response = getattr(exc, "response", None)
        after = response.headers.get("retry-after") if response is not None else None
        try:
            if after is not None:
                wait = min(s.backoff_max_s, float(after))
        except ValueError:
            pass
        return wait

    def _refused(self, exc: Exception, model: str) -> LLMError:
        """The error for a request the server rejected, naming the config key of a refused parameter."""
        s = self.settings
        param = refused_parameter(str(exc))
        hint = ""
        if param:
            hint = (
                f"; the {self.family}-family request carried {param!r}: change "
                f"{config_key(s.role, param, s, self.family)}"
            )
        return LLMError(f"role {s.role}, model {model} at {self.base_url}: request rejected ({exc}){hint}")

    def chat(
        self, model: str, messages: list[dict], tools: list[dict] | None, params: dict, on_send=None
    ) -> ChatResponse:
        """One completion; `on_send()` is called for every HTTP request sent (retries included)."""
        s = self.settings
        kwargs = dict(params)
        choices = kwargs.pop(structured.CHOICES, None)  # ours, never a request field
        mode = s.structured_outputs
        if mode:
            kwargs = structured.request(mode, s.role, kwargs, tools, choices)
            messages_sent = structured.history(mode, messages)
        else:
            messages_sent = messages
        if tools:
            kwargs["tools"] = tools
        start = time.perf_counter()
        for attempt in range(s.retries + 1):
            try:
                if on_send is not None:
                    on_send()
                with self._slots.held() if self._slots is not None else contextlib.nullcontext():
                    resp = self._client.chat.completions.create(model=model, messages=messages_sent, **kwargs)
                break
            except self._retryable as exc:
                if isinstance(exc, self._openai.InternalServerError) and validation_error(exc):
                    raise self._refused(exc, model) from exc
                if unanswered(exc):
                    raise LLMError(
                        f"role {s.role}, model {model} at {self.base_url}: no answer within {s.timeout_s:g} s "
                        f"(llm.roles.{s.role}.timeout_s); not sent again, since the server may still be working on "
                        f"it: raise timeout_s, or state how many requests the server decodes at once "
                        f"(llm.roles.{s.role}.server_slots) so that requests wait their turn here"
                    ) from exc
                if attempt == s.retries:
                    raise LLMError(
                        f"role {s.role}, model {model} at {self.base_url}: gave up after "
                        f"{s.retries + 1} attempts (llm.roles.{s.role}.retries={s.retries}): {exc}"
                    ) from exc
                with self._lock:
                    self.retries += 1
                time.sleep(self._wait(attempt, exc))
            except self._openai.APIStatusError as exc:
                raise self._refused(exc, model) from exc
            except self._openai.APIError as exc:
                raise LLMError(f"role {s.role}, model {model} at {self.base_url}: {exc}") from exc
            except TypeError as exc:  # an unknown request parameter
                raise LLMError(
                    f"role {s.role}: bad request parameter in llm.roles.{s.role}.params ({exc}); "
                    f"put server-specific ones under params.extra_body"
                ) from exc
        latency = time.perf_counter() - start
        response = self._parse(resp, model, messages, latency)
        if mode and not response.tool_calls and (choices or (tools and params.get("tool_choice") != "none")):
            content, calls = structured.parse(mode, response.content, tools, choices)
            response = dataclasses.replace(response, content=content, tool_calls=calls)
        return response

    def choose(self, prompt: str, options: list[str]) -> tuple[int, Usage, float]:
        """The option named by number, asked as the embedded backend asks it and decoded under the option numbers
        (a role with structured_outputs: the served preset); an unreadable reply is the first option, as there."""
        from tailmem.llm.backends.instruct import choose_messages

        numbers = [str(i) for i in range(len(options), 0, -1)]
        params = {"temperature": 0.0, "max_tokens": 4, structured.CHOICES: numbers}
        r = self.chat(self.settings.model, choose_messages(prompt, options), None, params)
        try:
            return int((r.content or "").strip()) - 1, r.usage, r.latency_s
        except ValueError:
            return 0, r.usage, r.latency_s

    def _parse(self, resp, model: str, messages: list[dict], latency: float) -> ChatResponse:
        if not resp.choices:
            raise LLMError(f"role {self.settings.role}, model {model}: response has no choices")
        msg = resp.choices[0].message
        calls = []
        for tc in msg.tool_calls or []:
            raw = tc.function.arguments or "{}"
            try:
                args = json.loads(raw)
            except json.JSONDecodeError:
                args = {"_unparsed": raw}  # the agent sees the model's malformed call instead of a crash
            if not isinstance(args, dict):
                args = {"_value": args}
            calls.append(ToolCall(id=tc.id or "", name=tc.function.name, arguments=args))
        u = resp.usage
        if u is not None:
            details = getattr(u, "prompt_tokens_details", None)
            cached = (getattr(details, "cached_tokens", None) or 0) if details is not None else 0
            usage = Usage(int(u.prompt_tokens or 0), int(cached), int(u.completion_tokens or 0))
        else:  # some servers omit usage: estimate it so accounting never silently reads zero
            usage = Usage(
                count_message_tokens(messages, self.encoding), 0, count_tokens(msg.content or "", self.encoding)
            )
        return ChatResponse(
            content=msg.content,
            tool_calls=tuple(calls),
            usage=usage,
            model=resp.model or model,
            from_cache=False,
            latency_s=latency,
        )


def open_backend(settings, llm) -> OpenAIBackend:
    """The role's endpoint client (its `Kind.build`), with the family of its model (tailmem.llm.params)."""
    return OpenAIBackend(settings, llm.encoding, family_of(settings.model, families(llm), settings.family))
