"""Test kit for tests/llm: a small OpenAI-compatible chat-completions server on 127.0.0.1 for the tests: tool calls, usage with cached
tokens, scripted 429 / 500 answers, a fixed latency, and a count of every request by its last user message.

It validates requests the way the servers we target do: with `reasoning=True`, as the OpenAI API does for
reasoning models (400 on `max_tokens`, on any temperature but 1, on an unknown reasoning_effort); with
`reasoning=False`, as it does for other chat models (400 on `reasoning_effort`); `None` accepts any parameter. An assistant message with `"content": null` gets llama.cpp's
500 request-validation error when `null_content_500` is set. GET /v1/models lists `served_id`."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Threads of every model a test decodes (in process, or in a llama.cpp server the test starts). The suite runs one
# pytest-xdist worker per core, so a decode always has another busy process beside it, and llama.cpp's threads wait
# for each other at every layer by spinning: two calls of the embedded model with 2 threads beside busy processes
# took 93 s of CPU (374 s wall), with 1 thread 14 s (68 s wall), on the 2-core machine (n_threads_batch too).
MODEL_THREADS = 1


class FakeServer:
    def __init__(
        self,
        latency_s: float = 0.0,
        reply=None,
        agent=None,
        reasoning: bool | None = None,
        null_content_500: bool = False,
        served_id: str = "test-model",
        drop_prompt: bool = False,
    ):
        self.latency_s = latency_s
        self.reasoning = reasoning
        self.null_content_500 = null_content_500
        self.served_id = served_id
        self.drop_prompt = drop_prompt  # bill only the last message, as a server that dropped the rest
        self.script: list[int] = []  # statuses to answer (in order) before answering normally
        self.reply = reply  # optional: fn(request) -> content
        self.agent = agent  # optional: fn(request) -> the whole assistant message (content and/or tool_calls)
        self.on_request = None  # optional: fn(n_requests) called as each request arrives
        self.requests = 0
        self.by_prompt: Counter = Counter()
        self.statuses: Counter = Counter()
        self.active = 0
        self.max_active = 0
        self.bodies: list[dict] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict) -> dict:
        messages = body["messages"]
        last = next((m.get("content") or "" for m in reversed(messages) if m["role"] == "user"), "")
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:12]
        message: dict = {"role": "assistant", "content": None}
        if self.agent is not None:
            message = self.agent(body)
        elif body.get("tools") and messages[-1]["role"] == "user":
            name = body["tools"][0]["function"]["name"]
            message["tool_calls"] = [
                {
                    "id": f"call_{digest}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps({"query": last})},
                }
            ]
        else:
            message["content"] = self.reply(body) if self.reply else f"answer {digest}"
        billed = messages[-1:] if self.drop_prompt else messages
        prompt = sum(len(str(m.get("content") or "")) for m in billed) // 4 + 3
        completion = len(str(message["content"] or "x").split())
        return {
            "id": f"chatcmpl-{digest}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": prompt // 2},
            },
        }

    def refuse(self, body: dict) -> tuple[int, str] | None:
        """The status and message a parameter-validating server answers this request with, or None."""
        if self.reasoning:
            if "max_tokens" in body:
                return 400, (
                    "Unsupported parameter: 'max_tokens' is not supported with this model. "
                    "Use 'max_completion_tokens' instead."
                )
            if "temperature" in body and body["temperature"] != 1:
                return 400, (
                    f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                    f"model. Only the default (1) value is supported."
                )
            if "reasoning_effort" in body and body["reasoning_effort"] not in ("minimal", "low", "medium", "high"):
                return (
                    400,
                    f"Invalid value: '{body['reasoning_effort']}'. Supported values are: 'minimal', 'low', 'medium', and 'high'.",
                )
        elif self.reasoning is False and "reasoning_effort" in body:
            return 400, "Unsupported parameter: 'reasoning_effort' is not supported with this model."
        if self.null_content_500 and any(
            m["role"] == "assistant" and m.get("content") is None for m in body["messages"]
        ):
            return (
                500,
                "1 validation error for ChatCompletionRequestAssistantMessage: content: Input should be a valid string",
            )
        return None

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, payload: dict, headers: dict | None = None):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(
                        200,
                        {
                            "object": "list",
                            "data": [
                                {"id": server.served_id, "object": "model", "owned_by": "test", "max_model_len": 4096}
                            ],
                        },
                    )
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                refused = server.refuse(body)
                with server._lock:
                    server.requests += 1
                    n = server.requests
                    last = next((m.get("content") or "" for m in reversed(body["messages"]) if m["role"] == "user"), "")
                    server.by_prompt[last] += 1
                    server.bodies.append(body)
                    status = server.script.pop(0) if server.script else (refused[0] if refused else 200)
                    server.statuses[status] += 1
                    server.active += 1
                    server.max_active = max(server.max_active, server.active)
                # In flight from arrival until the reply is ready, not until it is written: the client may read the
                # reply and send its next request before this thread writes its last byte and returns, and counting
                # to then showed 2 in flight under a concurrency of 1 on a loaded machine.
                try:
                    if server.on_request:
                        server.on_request(n)
                    time.sleep(server.latency_s)
                    if status == 200:
                        reply = (200, server.answer(body), None)
                    else:
                        message = refused[1] if refused and status == refused[0] else f"scripted {status}"
                        kind = "invalid_request_error" if status < 500 else "server_error"
                        retry = {"Retry-After": "0"} if status == 429 else None
                        reply = (status, {"error": {"message": message, "type": kind}}, retry)
                finally:
                    with server._lock:
                        server.active -= 1
                self._send(*reply)

        return Handler


def llm_cfg(tmp_path, base_url: str, **over) -> dict:
    """A whole-config dict with every role on the test server: the shipped offline group's keys
    (tailmem.llm.group.shipped_tree) with these; `over` overrides llm keys."""
    from tailmem.llm.group import shipped_tree

    llm = {
        "name": "test",
        "cache_path": str(tmp_path / "llm_cache.sqlite"),
        "prices": {"test-model": {"input": 0.75, "cached_input": 0.075, "output": 4.50}},
        "budget": {"max_dollars": None, "max_tokens": None},
        "concurrency": 8,
        "retries": 3,
        "backoff_s": 0.01,
        "backoff_max_s": 0.05,
        "timeout_s": 10.0,
        "base_url": base_url,
        "roles": {
            r: {"backend": "openai", "model": "test-model"}
            for r in ("policy", "predictor", "builder", "searcher", "executor", "judge")
        },
    }
    llm.update(over)
    return {"llm": shipped_tree(**llm)}


def free_port() -> int:
    """A local TCP port nothing listens on now, for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_packages_missing() -> str | None:
    """Why llama-cpp-python's OpenAI-compatible server cannot start here (its extra packages), or None."""
    try:
        import llama_cpp.server.app  # noqa: F401
    except ImportError as exc:
        return f"llama.cpp's server needs the `local` extra's server packages (fastapi, uvicorn...): {exc}"
    return None
