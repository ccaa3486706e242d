"""Requests and tokens per minute for a hosted endpoint, kept under its limits before a request is sent.

A provider answers a burst over its rate limit with 429s; the backend retries them after a backoff, but each
retry is another request in the same minute. Pacing instead holds a request back until the last 60 seconds leave
room for it: at most `requests_per_minute` sends, and at most `tokens_per_minute` tokens, counting a request as
its prompt estimate plus its output cap until its reply bills the real total (the way providers reserve tokens
against the limit). Every send is paced, retries included, since a retry counts against the provider's limits.

One pacer per endpoint, model and limits in this process, shared by every role and thread that sends there. It
paces one process: under Snakemake, give each job its share of the provider's limits (limit / jobs that call it).
A request larger than the whole token limit is sent once the window is empty, rather than never.
"""

from __future__ import annotations

import threading
import time
from collections import deque

WINDOW_S = 60.0


class Pacer:
    """A sliding 60-second window of sends (time, tokens); `acquire` blocks until one more fits."""

    def __init__(
        self,
        requests_per_minute: int | None,
        tokens_per_minute: int | None,
        window_s: float = WINDOW_S,
        clock=time.monotonic,
        sleep=time.sleep,
    ):
        self.rpm, self.tpm, self.window_s = requests_per_minute, tokens_per_minute, float(window_s)
        self._clock, self._sleep = clock, sleep
        self._sends: deque[list] = deque()  # [time, tokens], oldest first
        self._tokens = 0
        self._lock = threading.Lock()
        self.waited_s = 0.0  # total time requests were held back, for logs and tests

    def _expire(self, now: float) -> None:
        while self._sends and self._sends[0][0] <= now - self.window_s:
            self._tokens -= self._sends.popleft()[1]

    def _fits(self, tokens: int) -> bool:
        if self.rpm is not None and len(self._sends) >= self.rpm:
            return False
        return self.tpm is None or not self._sends or self._tokens + tokens <= self.tpm

    def acquire(self, tokens: int = 0) -> list:
        """Wait until a send of `tokens` fits the window, record it, and return its entry (for `settle`)."""
        tokens = max(0, int(tokens))
        while True:
            with self._lock:
                now = self._clock()
                self._expire(now)
                if self._fits(tokens):
                    entry = [now, tokens]
                    self._sends.append(entry)
                    self._tokens += tokens
                    return entry
                wait = self._sends[0][0] + self.window_s - now  # when the oldest send leaves the window
            wait = max(wait, 0.001)
            self.waited_s += wait
            self._sleep(wait)

    def settle(self, entry: list, tokens: int) -> None:
        """Replace a send's reserved tokens by what its reply billed."""
        with self._lock:
            if any(e is entry for e in self._sends):
                self._tokens += int(tokens) - entry[1]
            entry[1] = int(tokens)


_lock = threading.Lock()
_pacers: dict[tuple, Pacer] = {}


def pacer_for(endpoint: str, model: str, requests_per_minute: int | None, tokens_per_minute: int | None):
    """The process's pacer of `endpoint` and `model` under these limits; None when neither limit is set."""
    if requests_per_minute is None and tokens_per_minute is None:
        return None
    key = (endpoint, model, requests_per_minute, tokens_per_minute)
    with _lock:
        if key not in _pacers:
            _pacers[key] = Pacer(requests_per_minute, tokens_per_minute, WINDOW_S)
        return _pacers[key]
