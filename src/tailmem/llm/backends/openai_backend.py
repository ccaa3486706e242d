"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, ollama, a llama.cpp server) through the `openai` package.

Retries are ours, not the SDK's (its max_retries is 0), so they are counted and their backoff is set in config:
429, 5xx, time-outs and dropped connections wait backoff_s * 2^attempt (jittered, capped, or the server's
Retry-After) and try again; any other error fails at once with the role, model and status in the message.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time

from tailmem.errors import LLMError
from tailmem.llm.records import ChatResponse, ToolCall, Usage
from tailmem.llm.settings import RoleSettings
from tailmem.llm.tokens import count_message_tokens, count_tokens

OPENAI_URL = "https://api.openai.com/v1"


class OpenAIBackend:
    name = "openai"

    def __init__(self, settings: RoleSettings, encoding: str = "o200k_base"):
        import openai

        self.settings = settings
        self.encoding = encoding
        self.base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        key = settings.api_key or os.environ.get(settings.api_key_env)
        if not key:
            if self.base_url.rstrip("/") == OPENAI_URL:
                raise LLMError(f"role {settings.role}: no API key; set ${settings.api_key_env} "
                               f"(llm.roles.{settings.role}.api_key_env) to call {OPENAI_URL}")
            key = "unused"  # local servers (vLLM, ollama, llama.cpp) ignore the key
        self._openai = openai
        self._client = openai.OpenAI(api_key=key, base_url=self.base_url, timeout=settings.timeout_s, max_retries=0)
        self._retryable = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                           openai.APIConnectionError)
        self._lock = threading.Lock()
        self.retries = 0  # retried attempts, for tests and logs

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

    def chat(self, model: str, messages: list[dict], tools: list[dict] | None, params: dict) -> ChatResponse:
        s = self.settings
        kwargs = dict(params)
        if tools:
            kwargs["tools"] = tools
        start = time.perf_counter()
        for attempt in range(s.retries + 1):
            try:
                resp = self._client.chat.completions.create(model=model, messages=messages, **kwargs)
                break
            except self._retryable as exc:
                if attempt == s.retries:
                    raise LLMError(f"role {s.role}, model {model} at {self.base_url}: gave up after "
                                   f"{s.retries + 1} attempts (llm.roles.{s.role}.retries={s.retries}): {exc}") from exc
                with self._lock:
                    self.retries += 1
                time.sleep(self._wait(attempt, exc))
            except self._openai.APIError as exc:
                raise LLMError(f"role {s.role}, model {model} at {self.base_url}: {exc}") from exc
            except TypeError as exc:  # an unknown request parameter
                raise LLMError(f"role {s.role}: bad request parameter in llm.roles.{s.role}.params ({exc}); "
                               f"put server-specific ones under params.extra_body") from exc
        latency = time.perf_counter() - start
        return self._parse(resp, model, messages, latency)

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
            usage = Usage(count_message_tokens(messages, self.encoding), 0,
                          count_tokens(msg.content or "", self.encoding))
        return ChatResponse(content=msg.content, tool_calls=tuple(calls), usage=usage, model=resp.model or model,
                            from_cache=False, latency_s=latency)
