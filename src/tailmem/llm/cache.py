"""The call cache: every request hashed to its response, usage, latency and time, in one SQLite file.

Why SQLite in WAL mode: each call is one transaction, so several processes can write at once (they queue on the
write lock, readers never block) and a kill -9 mid-write loses at most the call in flight, never the file. A re-run
finds every finished call and pays for none. Hits and misses are counted per role and stage; hit counts are
buffered and flushed in batches so a hit stays cheap.

Pay once across processes: before paying, a process claims the request with a row in `pending` (host, pid); a
twin that finds the claim waits for the answer instead of sending the same request. A claim whose process is gone
(killed mid-call) or, on another host, older than `stale_s`, is taken over. `sent` counts HTTP requests really
sent (retries and failures included), `short_prompts` answers billed far fewer prompt tokens than were sent.
`endpoints` remembers which served model answered at each base URL, so replay hashes as the recording did.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import LLMError
from tailmem.llm.records import ChatResponse

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    hash TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    stage TEXT NOT NULL,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    dollars REAL NOT NULL,
    latency_s REAL NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS counts (
    role TEXT NOT NULL,
    stage TEXT NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    misses INTEGER NOT NULL DEFAULT 0,
    sent INTEGER NOT NULL DEFAULT 0,
    short_prompts INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (role, stage)
);
CREATE TABLE IF NOT EXISTS pending (
    hash TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS endpoints (
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (base_url, model, endpoint)
);
"""
COUNTERS = ("sent", "short_prompts")  # columns added to `counts` (older caches get them on open)


def canonical(request: dict) -> str:
    """One JSON text per request: sorted keys, no spaces, so equal requests hash equally."""
    return json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def request_hash(request: dict) -> str:
    return hashlib.sha256(canonical(request).encode()).hexdigest()


@dataclass(frozen=True)
class StageStats:
    role: str
    stage: str
    hits: int
    misses: int
    sent: int
    short_prompts: int
    calls: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    dollars: float
    seconds: float  # inside the model: the recorded calls' latencies (what a slow machine spends them on)


def wait_for_answer(cache, key: str, poll_s: float, max_poll_s: float) -> ChatResponse | None:
    """Poll `cache` for `key` while another process holds its claim (`cache.claim_held`), backing off to
    `max_poll_s`: the answer, or None once the claim is gone or its owner is dead. One loop for both cache layouts
    (this sqlite file and `cache_shards.ShardedCallCache`), which differ only in where a claim is kept."""
    while True:
        hit = cache.get(key)
        if hit is not None:
            return hit
        if not cache.claim_held(key):
            return cache.get(key)
        time.sleep(poll_s)
        poll_s = min(max_poll_s, poll_s * 1.5)


class CallCache:
    """request hash -> recorded response, shared by threads (one connection each) and processes (file locks)."""

    FLUSH_EVERY = 64
    FLUSH_SECONDS = 1.0

    def __init__(self, path: str | Path, timeout_s: float = 60.0, stale_s: float = 3600.0):
        self.path = Path(path)
        self.timeout_s = timeout_s
        self.stale_s = stale_s  # a claim from another host older than this is abandoned
        self._local = threading.local()
        self._lock = threading.Lock()
        self._pending_hits: Counter = Counter()
        self._last_flush = time.monotonic()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self._create()
                break
            except sqlite3.OperationalError as exc:
                # several processes opening a new file at once: switching it to WAL or creating the tables can
                # answer "locked" at once (SQLite skips the busy wait where waiting could deadlock); try again
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise LLMError(f"call cache {self.path}: cannot open ({exc})") from exc
                stale, self._local.conn = getattr(self._local, "conn", None), None
                if stale is not None:
                    stale.close()
                time.sleep(0.05)
            except sqlite3.Error as exc:
                raise LLMError(f"call cache {self.path}: cannot open ({exc})") from exc
        atexit.register(self.flush)

    def _create(self) -> None:
        conn = self._conn()
        conn.executescript(SCHEMA)
        have = {row[1] for row in conn.execute("PRAGMA table_info(counts)")}
        for column in COUNTERS:  # caches written before these counters existed
            if column not in have:
                try:
                    conn.execute(f"ALTER TABLE counts ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
                except sqlite3.OperationalError as exc:
                    if "duplicate column" not in str(exc):  # else another process added it first
                        raise

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():  # never reuse a connection across fork
            conn = sqlite3.connect(self.path, timeout=self.timeout_s, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable against a killed process
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout_s * 1000)}")
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def get(self, key: str) -> ChatResponse | None:
        row = self._conn().execute("SELECT response FROM calls WHERE hash = ?", (key,)).fetchone()
        return None if row is None else ChatResponse.from_json(json.loads(row[0]), from_cache=True)

    def put(
        self, key: str, role: str, stage: str, backend: str, request: dict, response: ChatResponse, dollars: float
    ) -> None:
        """Record one finished call and count its miss, in one transaction; a second writer of the same key loses."""
        u = response.usage
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT OR IGNORE INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    key,
                    role,
                    stage,
                    backend,
                    response.model,
                    canonical(request),
                    json.dumps(response.to_json()),
                    u.prompt_tokens,
                    u.cached_tokens,
                    u.completion_tokens,
                    dollars,
                    response.latency_s,
                    time.time(),
                ),
            )
            conn.execute(
                "INSERT INTO counts (role, stage, misses) VALUES (?,?,1) "
                "ON CONFLICT(role, stage) DO UPDATE SET misses = misses + 1",
                (role, stage),
            )
            conn.execute("DELETE FROM pending WHERE hash = ?", (key,))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise LLMError(
                f"call cache {self.path}: cannot record call {key} of role {role}, stage {stage} ({exc})"
            ) from exc

    # -- pay once across processes --------------------------------------------------------------------------------
    def _alive(self, host: str, pid: int, created: float) -> bool:
        return claim_alive(host, pid, created, self.stale_s)

    def claim(self, key: str) -> str:
        """'done' if the call is recorded, 'owner' if this process now holds the claim, 'wait' if another does."""
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            if conn.execute("SELECT 1 FROM calls WHERE hash = ?", (key,)).fetchone():
                state = "done"
            else:
                row = conn.execute("SELECT host, pid, created FROM pending WHERE hash = ?", (key,)).fetchone()
                if row is not None and (row[0], row[1]) != (socket.gethostname(), os.getpid()) and self._alive(*row):
                    state = "wait"
                else:
                    conn.execute(
                        "INSERT OR REPLACE INTO pending VALUES (?,?,?,?)",
                        (key, socket.gethostname(), os.getpid(), time.time()),
                    )
                    state = "owner"
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise LLMError(f"call cache {self.path}: cannot claim call {key} ({exc})") from exc
        return state

    def release(self, key: str) -> None:
        """Drop this process's claim (its call failed), so a waiting twin takes over."""
        try:
            self._conn().execute(
                "DELETE FROM pending WHERE hash = ? AND host = ? AND pid = ?", (key, socket.gethostname(), os.getpid())
            )
        except sqlite3.Error:
            pass

    def claim_held(self, key: str) -> bool:
        """Another live process has claimed `key` and is paying for it."""
        row = self._conn().execute("SELECT host, pid, created FROM pending WHERE hash = ?", (key,)).fetchone()
        return row is not None and self._alive(*row)

    def wait(self, key: str, poll_s: float = 0.02, max_poll_s: float = 0.5) -> ChatResponse | None:
        """Wait while another process pays for `key`: its answer, or None once its claim is gone or dead."""
        return wait_for_answer(self, key, poll_s, max_poll_s)

    # -- endpoints ----------------------------------------------------------------------------------------------------
    def record_endpoint(self, base_url: str, model: str, endpoint: str) -> None:
        try:
            self._conn().execute(
                "INSERT OR REPLACE INTO endpoints VALUES (?,?,?,?)", (base_url, model, endpoint, time.time())
            )
        except sqlite3.Error:  # bookkeeping for replay only
            pass

    def recorded_endpoint(self, base_url: str, model: str) -> str | None:
        """The endpoint last recorded for (base_url, model); else, if only one was recorded for the model, that one."""
        conn = self._conn()
        row = conn.execute(
            "SELECT endpoint FROM endpoints WHERE base_url = ? AND model = ? ORDER BY created DESC", (base_url, model)
        ).fetchone()
        if row:
            return row[0]
        rows = conn.execute("SELECT DISTINCT endpoint FROM endpoints WHERE model = ?", (model,)).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def bump(self, role: str, stage: str, counter: str, n: int = 1) -> None:
        """Add n to a counter of COUNTERS at once (not buffered: `sent` is what was paid for)."""
        if counter not in COUNTERS:
            raise ValueError(counter)
        try:
            conn = self._conn()
            conn.execute(
                f"INSERT INTO counts (role, stage, {counter}) VALUES (?,?,?) "
                f"ON CONFLICT(role, stage) DO UPDATE SET {counter} = {counter} + excluded.{counter}",
                (role, stage, n),
            )
        except sqlite3.Error:
            pass

    def count_hit(self, role: str, stage: str) -> None:
        with self._lock:
            self._pending_hits[(role, stage)] += 1
            due = (
                sum(self._pending_hits.values()) >= self.FLUSH_EVERY
                or time.monotonic() - self._last_flush > self.FLUSH_SECONDS
            )
        if due:
            self.flush()

    def flush(self) -> None:
        """Write buffered hit counts."""
        with self._lock:
            pending, self._pending_hits = self._pending_hits, Counter()
            self._last_flush = time.monotonic()
        if not pending:
            return
        try:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT INTO counts (role, stage, hits) VALUES (?,?,?) "
                "ON CONFLICT(role, stage) DO UPDATE SET hits = hits + excluded.hits",
                [(r, s, n) for (r, s), n in pending.items()],
            )
            conn.execute("COMMIT")
        except sqlite3.Error:  # counts are bookkeeping; never fail a stage over them
            pass

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM calls").fetchone()[0]

    def stats(self) -> list[StageStats]:
        """Hits, misses, recorded tokens, dollars and seconds per (role, stage)."""
        self.flush()
        return read_stats(self._conn())


def claim_alive(host: str, pid: int, created: float, stale_s: float) -> bool:
    """Whether a claim's owner may still answer: its process exists (this host), and the claim is not older than
    stale_s (no call lives that long: a reused pid or a claim from another host is abandoned then)."""
    if time.time() - created >= stale_s:
        return False
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def read_stats(conn: sqlite3.Connection) -> list[StageStats]:
    sums = {
        (r, s): rest
        for r, s, *rest in conn.execute(
            "SELECT role, stage, COUNT(*), SUM(prompt_tokens), SUM(cached_tokens), SUM(completion_tokens), "
            "SUM(dollars), SUM(latency_s) FROM calls GROUP BY role, stage"
        )
    }
    have = {row[1] for row in conn.execute("PRAGMA table_info(counts)")}
    extra = ", ".join(c if c in have else "0" for c in COUNTERS)
    counts = {(r, s): rest for r, s, *rest in conn.execute(f"SELECT role, stage, hits, misses, {extra} FROM counts")}
    out = []
    for key in sorted(set(sums) | set(counts)):
        n, p, c, o, d, t = sums.get(key, (0, 0, 0, 0, 0.0, 0.0))
        h, m, sent, short = counts.get(key, (0, 0, 0, 0))
        out.append(StageStats(key[0], key[1], h, m, sent, short, n, p or 0, c or 0, o or 0, d or 0.0, t or 0.0))
    return out
