"""A server that decodes one request at a time is never asked twice, and never holds more of our requests than it
decodes (issue: "a busy single-slot server is asked twice").

The server here is a real HTTP server on 127.0.0.1, built as llama-cpp-python's is: it accepts every connection at
once and decodes one request at a time behind a lock, slowly. It counts what it receives: requests, each prompt's
copies, and how many it held at once (received, not yet answered). The old client sent `concurrency` requests at
once and, when one waited longer than `timeout_s` in the server's queue, sent it again while the server still had
it: the server received copies. With `server_slots` stated, the client keeps no more requests in flight than the
server decodes (across threads and processes) and waits for each answer as long as it takes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from llm_testkit import free_port, llm_cfg
from tailmem.errors import LLMError
from tailmem.llm import get_client
from tailmem.llm.parallel import llm_slots, workers_for

TESTS = Path(__file__).resolve().parents[1]


class OneSlotServer:
    """Accepts connections concurrently, decodes `slots` requests at a time for `decode_s` seconds each."""

    def __init__(self, decode_s: float, slots: int = 1):
        self.decode_s = decode_s
        self.by_prompt: Counter = Counter()
        self.held = 0  # requests received and not yet answered
        self.max_held = 0
        self._decoder = threading.Semaphore(slots)
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def requests(self) -> int:
        return sum(self.by_prompt.values())

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, payload: dict):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up on this request
                    pass

            def do_GET(self):
                self._send({"object": "list", "data": [{"id": "test-model", "object": "model"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"]
                with server._lock:
                    server.by_prompt[prompt] += 1
                    server.held += 1
                    server.max_held = max(server.max_held, server.held)
                with server._decoder:  # one model behind one lock, as llama-cpp-python's server
                    time.sleep(server.decode_s)
                with server._lock:
                    server.held -= 1
                self._send(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": f"re {prompt}"},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
                    }
                )

        return Handler


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def ask_at_once(client, prompts: list[str]) -> list[str]:
    """Every prompt from its own thread at the same time (as a stage's units, or two roles, may)."""
    with ThreadPoolExecutor(len(prompts)) as pool:
        return [r.content for r in pool.map(lambda p: client.chat(user(p)), prompts)]


@pytest.mark.parametrize("slots", [1, 2])
def test_n_concurrent_calls_reach_the_server_once_each_and_never_more_than_its_slots(tmp_path, slots):
    """6 calls at once with timeout_s shorter than the queue they would form: each prompt arrives exactly once and
    the server never holds more requests than it decodes."""
    n, decode_s = 6, 0.3
    with OneSlotServer(decode_s, slots) as server:
        cfg = llm_cfg(tmp_path, server.base_url, server_slots=slots, timeout_s=0.8, concurrency=8)
        client = get_client(cfg, "searcher", "test")
        prompts = [f"q{i}" for i in range(n)]
        answers = ask_at_once(client, prompts)
    assert answers == [f"re {p}" for p in prompts]
    assert server.requests == n and set(server.by_prompt.values()) == {1}, server.by_prompt
    assert server.max_held == slots, server.max_held
    assert client.sent == n and client.retries == 0


def test_without_stated_slots_a_request_that_timed_out_is_not_sent_again(tmp_path):
    """A server slower than timeout_s: the call fails naming the keys to change, and the server got one copy."""
    with OneSlotServer(decode_s=1.5) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, timeout_s=0.5, retries=3), "judge", "test")
        with pytest.raises(LLMError, match=r"no answer within 0\.5 s.*timeout_s.*not sent again.*server_slots"):
            client.chat(user("slow"))
        time.sleep(1.2)  # what a re-sent copy would have needed to arrive
    assert server.requests == 1 and client.retries == 0


def test_with_stated_slots_a_slow_answer_is_waited_for(tmp_path):
    """The request holds the server's slot, so it is being decoded: no read time-out, one request, one answer."""
    with OneSlotServer(decode_s=1.2) as server:
        cfg = llm_cfg(tmp_path, server.base_url, server_slots=1, timeout_s=0.4)
        reply = get_client(cfg, "judge", "test").chat(user("slow"))
    assert reply.content == "re slow" and server.requests == 1


def test_a_connection_that_cannot_be_made_is_retried(tmp_path):
    """Nothing listens: the request never reached a server, so trying again sends no copy."""
    base = f"http://127.0.0.1:{free_port()}/v1"
    client = get_client(llm_cfg(tmp_path, base, server_slots=1, retries=2), "judge", "test")
    with pytest.raises(LLMError, match="3 attempts"):
        client.chat(user("anyone?"))
    assert client.retries == 2


CALLER = """
import json, sys
sys.path.insert(0, {tests!r})
from concurrent.futures import ThreadPoolExecutor
from llm_testkit import llm_cfg
from tailmem.llm import get_client
cfg = llm_cfg(__import__("pathlib").Path({tmp!r}), {base!r}, server_slots=1, timeout_s=0.5)
client = get_client(cfg, "searcher", "test")
with ThreadPoolExecutor(2) as pool:
    list(pool.map(lambda p: client.chat([{{"role": "user", "content": p}}]), [{tag!r} + "a", {tag!r} + "b"]))
"""


def test_the_slots_are_shared_by_the_processes_of_a_machine(tmp_path):
    """Two jobs (processes), two calls at once each, one server slot: the server holds one request at a time."""
    with OneSlotServer(decode_s=0.3) as server:
        procs = []
        for tag in ("p", "r"):
            folder = tmp_path / tag
            folder.mkdir()
            code = CALLER.format(tests=str(TESTS), tmp=str(folder), base=server.base_url, tag=tag)
            procs.append(subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True))
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], errors
    assert server.by_prompt == Counter({"pa": 1, "pb": 1, "ra": 1, "rb": 1})
    assert server.max_held == 1


def test_a_job_runs_no_more_units_than_the_server_decodes(tmp_path):
    """Threads beyond the server's slots would only wait, and interleave the conversations whose prompt prefix the
    server keeps: a unit at a time on a single-slot server, and a job declares that many `llm_slots`."""
    base = f"http://127.0.0.1:{free_port()}/v1"
    one = get_client(llm_cfg(tmp_path, base, server_slots=1, concurrency=8), "searcher", "test")
    assert workers_for(one, 10) == 1
    two = get_client(llm_cfg(tmp_path, base, server_slots=2, concurrency=8), "searcher", "test")
    assert workers_for(two, 10) == 2
    assert workers_for(get_client(llm_cfg(tmp_path, base, concurrency=8), "searcher", "test"), 10) == 8
    assert llm_slots(llm_cfg(tmp_path, base, server_slots=1, concurrency=8), ["searcher", "judge"]) == 1
