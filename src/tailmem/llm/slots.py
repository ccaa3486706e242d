"""The requests a server decodes at once (`llm.server_slots`), and never more of ours in flight than that.

Why: a server with fewer decoding slots than requests sent to it queues the rest, and a client that times a queued
request out and sends it again adds a copy of a request the server is still working on: under load the queue fills
with copies and nothing is answered (llama-cpp-python's server decodes one request at a time, behind one lock).
A role whose preset states `server_slots` takes a slot of its endpoint before each HTTP request and gives it back
when the answer (or the error) is in, so its requests wait their turn here, where waiting sends nothing, and the
server only ever holds requests it is decoding; the backend then waits for an answer as long as it takes.

The slots are shared by every thread of a process (a semaphore per endpoint) and by every process on this machine
(one lock file per slot under the user cache, held with flock: a job killed mid-call frees its slot as its files
close). Jobs on other machines, or other clients of the same server, are not counted: give them their share.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

POLL_S = 0.05  # how often a request waiting for another process's slot looks again


class ServerSlots:
    """`slots` requests at once to one endpoint, across the threads and processes of this machine."""

    def __init__(self, endpoint: str, slots: int, folder: Path):
        if slots < 1:
            raise ValueError(f"server slots for {endpoint}: expected at least 1, got {slots}")
        self.endpoint, self.slots = endpoint, int(slots)
        key = hashlib.sha256(endpoint.encode()).hexdigest()[:16]
        self._files = [Path(folder) / f"{key}.{i}.lock" for i in range(self.slots)]
        self._threads = threading.BoundedSemaphore(self.slots)
        self.waited_s = 0.0  # total time requests waited for a slot, for logs and tests

    def _take_file(self) -> int:
        """A file descriptor holding one slot's lock (waits while other processes hold them all)."""
        self._files[0].parent.mkdir(parents=True, exist_ok=True)
        while True:
            for path in self._files:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return fd
                except BlockingIOError:
                    os.close(fd)
            time.sleep(POLL_S)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold one slot for the body of the `with` (one HTTP request and its answer)."""
        start = time.monotonic()
        with self._threads:
            fd = self._take_file()
            self.waited_s += time.monotonic() - start
            try:
                yield
            finally:
                os.close(fd)  # closing the file releases its flock


_lock = threading.Lock()
_slots: dict[tuple, ServerSlots] = {}


def slots_for(endpoint: str, slots: int | None) -> ServerSlots | None:
    """The process's slots of `endpoint` (None when the preset states no `server_slots`)."""
    if slots is None:
        return None
    from tailmem.paths import user_cache_dir

    key = (endpoint, int(slots))
    with _lock:
        if key not in _slots:
            _slots[key] = ServerSlots(endpoint, int(slots), user_cache_dir() / "server-slots")
        return _slots[key]
