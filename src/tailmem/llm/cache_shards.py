"""The call cache as a folder of per-process files, for a folder that jobs on several nodes share (NFS, Lustre...).

Why: one SQLite file in WAL mode (tailmem.llm.cache) needs shared memory between all its readers and writers and
working file locks; a network filesystem gives neither across hosts, so cluster jobs writing one such file can
corrupt it. Here no file ever has two writers: each process appends to its own `<host>-<pid>-<start>.jsonl`,
one whole record per line in one write, never rewritten, and every process reads the union of all files. No lock
is needed for a correct answer. A line without its newline (a writer killed mid-write, or a write not visible
yet) is left for later; a line that does not parse is skipped; neither stops the other files from being read.

Each line is `kind TAB fields`, the small fields first so an index is built without decoding the requests:
`C hash response row` (a recorded call, counted as one miss of its role and stage), `N counts` (hit, sent and
short-prompt deltas), `E endpoint` (which served model answered at a base URL).

Pay once across processes: a claim is a file `claims/<hash>` made with O_EXCL (atomic on local disks and on
NFSv3 and later) holding its owner's host, pid and time; a twin that finds it waits for the answer. A claim
whose owner is gone (or, from another host, older than `stale_s`) is moved aside (one rename wins) and taken
over. Rare races can make two processes pay for one request; both answers are valid and the first read wins.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import socket
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path

from tailmem.errors import LLMError
from tailmem.llm.cache import COUNTERS, CallCache, StageStats, canonical, claim_alive, wait_for_answer
from tailmem.llm.records import ChatResponse

SUFFIX = ".jsonl"
_HASH = re.compile(r"^[0-9a-f]{64}$")


def shards_dir(cache_path: str | Path) -> Path:
    """The folder of the sharded layout beside `llm.cache_path` (`llm_cache.sqlite` -> `llm_cache.shards/`)."""
    return Path(cache_path).with_suffix(".shards")


class ShardedCallCache:
    """request hash -> recorded response over a folder of append-only files, one per writing process.

    The same methods as CallCache, so LLMClient uses either. Lookups are answered from an in-memory index of
    every file (hash -> response text), refreshed from the files' new bytes when a key is not found."""

    FLUSH_EVERY = CallCache.FLUSH_EVERY
    FLUSH_SECONDS = CallCache.FLUSH_SECONDS

    def __init__(self, path: str | Path, timeout_s: float = 60.0, stale_s: float = 3600.0):
        self.path = Path(path)
        self.timeout_s = timeout_s
        self.stale_s = stale_s
        self.claims = self.path / "claims"
        try:
            self.claims.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LLMError(f"call cache {self.path}: cannot create the folder ({exc})") from exc
        self._lock = threading.RLock()
        self._fd: int | None = None
        self._fd_pid: int | None = None
        self.own: Path | None = None
        self._offsets: dict[str, int] = {}  # file name -> bytes read up to the last whole line
        self._calls: dict[str, str] = {}  # hash -> response JSON text
        self._sums: dict[str, tuple] = {}  # hash -> (role, stage, prompt, cached, completion, dollars, seconds)
        self._counts: Counter = Counter()  # (role, stage, counter) -> n, misses included
        self._endpoints: list[tuple] = []  # (base_url, model, endpoint, created)
        self._pending_hits: Counter = Counter()
        self._last_flush = time.monotonic()
        self.skipped = 0  # lines that did not parse (a torn or foreign write)
        atexit.register(self.flush)

    # -- writing ------------------------------------------------------------------------------------------------------
    def _writer(self) -> int:
        """This process's own file, opened for appending (a new one after a fork)."""
        if self._fd is None or self._fd_pid != os.getpid():
            name = f"{socket.gethostname()}-{os.getpid()}-{time.time_ns()}{SUFFIX}"
            try:
                self._fd = os.open(self.path / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
            except OSError as exc:
                raise LLMError(f"call cache {self.path}: cannot create its shard {name} ({exc})") from exc
            self._fd_pid, self.own = os.getpid(), self.path / name
        return self._fd

    def _append(self, *fields: str) -> None:
        line = ("\t".join(fields) + "\n").encode("utf-8")
        with self._lock:
            fd = self._writer()
            view = memoryview(line)
            while view:  # one write for a regular file; a short write goes on where it stopped
                view = view[os.write(fd, view) :]

    # -- reading ------------------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read every file's new whole lines into the index."""
        try:
            names = sorted(n for n in os.listdir(self.path) if n.endswith(SUFFIX))
        except OSError as exc:
            raise LLMError(f"call cache {self.path}: cannot list its shards ({exc})") from exc
        with self._lock:
            for name in names:
                start = self._offsets.get(name, 0)
                try:
                    if os.stat(self.path / name).st_size <= start:
                        continue
                    with open(self.path / name, "rb") as f:
                        f.seek(start)
                        data = f.read()
                except OSError:
                    continue  # vanished or unreadable now; the next refresh tries again
                end = data.rfind(b"\n") + 1
                for raw in data[:end].splitlines():
                    self._index(raw)
                self._offsets[name] = start + end

    def _index(self, raw: bytes) -> None:
        try:
            kind, *fields = raw.decode("utf-8").split("\t")
            if kind == "C":
                key, response, row = fields
                if not _HASH.match(key):
                    raise ValueError(key)
                meta = json.loads(row)
                json.loads(response)
                if key not in self._calls:
                    self._calls[key] = response
                    self._sums[key] = (
                        meta["role"],
                        meta["stage"],
                        int(meta["prompt_tokens"]),
                        int(meta["cached_tokens"]),
                        int(meta["completion_tokens"]),
                        float(meta["dollars"]),
                        float(meta["latency_s"]),
                    )
                self._counts[(meta["role"], meta["stage"], "misses")] += 1
            elif kind == "N":
                (counts,) = fields
                parsed = [(str(r), str(s), str(c), int(n)) for r, s, c, n in json.loads(counts)]
                for r, s, c, n in parsed:
                    self._counts[(r, s, c)] += n
            elif kind == "E":
                (endpoint,) = fields
                base_url, model, name, created = json.loads(endpoint)
                self._endpoints.append((base_url, model, name, float(created)))
            else:
                raise ValueError(kind)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            self.skipped += 1

    def get(self, key: str) -> ChatResponse | None:
        text = self._calls.get(key)
        if text is None:
            self.refresh()
            text = self._calls.get(key)
        return None if text is None else ChatResponse.from_json(json.loads(text), from_cache=True)

    def put(
        self, key: str, role: str, stage: str, backend: str, request: dict, response: ChatResponse, dollars: float
    ) -> None:
        """Record one finished call (one line, counted as a miss when read) and drop this process's claim."""
        u = response.usage
        text = json.dumps(response.to_json(), ensure_ascii=False)
        row = {
            "role": role,
            "stage": stage,
            "backend": backend,
            "model": response.model,
            "prompt_tokens": u.prompt_tokens,
            "cached_tokens": u.cached_tokens,
            "completion_tokens": u.completion_tokens,
            "dollars": dollars,
            "latency_s": response.latency_s,
            "created": time.time(),
            "request": canonical(request),
        }
        try:
            self._append("C", key, text, json.dumps(row, ensure_ascii=False))
        except OSError as exc:
            raise LLMError(
                f"call cache {self.path}: cannot record call {key} of role {role}, stage {stage} ({exc})"
            ) from exc
        with self._lock:
            self._calls.setdefault(key, text)
        self.release(key)

    # -- pay once across processes ------------------------------------------------------------------------------------
    def _claim_of(self, key: str) -> tuple[str, int, float] | None:
        """The claim's (host, pid, created); a claim being written (empty) reads as fresh; None if there is none."""
        try:
            text = (self.claims / key).read_text()
        except FileNotFoundError:
            return None
        except OSError:
            return ("?", -1, time.time())
        try:
            host, pid, created = json.loads(text)
            return str(host), int(pid), float(created)
        except (ValueError, TypeError):
            return ("?", -1, time.time())

    def claim(self, key: str) -> str:
        """'done' if the call is recorded, 'owner' if this process now holds the claim, 'wait' if another does."""
        me = (socket.gethostname(), os.getpid())
        for _ in range(8):
            if self.get(key) is not None:
                return "done"
            try:
                fd = os.open(self.claims / key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                owner = self._claim_of(key)
                if owner is None:
                    continue  # released meanwhile
                if owner[:2] == me:
                    return "owner"
                if owner[0] == "?" or claim_alive(*owner, self.stale_s):
                    return "wait"
                aside = self.claims / f"{key}.stale.{me[0]}.{me[1]}.{time.time_ns()}"
                try:
                    os.rename(self.claims / key, aside)  # one rename wins; the losers try again
                    os.unlink(aside)
                except OSError:
                    pass
                continue
            except OSError as exc:
                raise LLMError(f"call cache {self.path}: cannot claim call {key} ({exc})") from exc
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps([me[0], me[1], time.time()]))
            if self.get(key) is not None:  # recorded, and its claim dropped, between the look-up and the claim
                self.release(key)
                return "done"
            return "owner"
        return "wait"

    def release(self, key: str) -> None:
        """Drop this process's claim (its call failed or is recorded), so a waiting twin goes on."""
        owner = self._claim_of(key)
        if owner is not None and owner[:2] == (socket.gethostname(), os.getpid()):
            try:
                os.unlink(self.claims / key)
            except OSError:
                pass

    def claim_held(self, key: str) -> bool:
        """Another live process has claimed `key` (a claim being written, not yet readable, counts as held)."""
        owner = self._claim_of(key)
        return owner is not None and (owner[0] == "?" or claim_alive(*owner, self.stale_s))

    def wait(self, key: str, poll_s: float = 0.02, max_poll_s: float = 0.5) -> ChatResponse | None:
        """Wait while another process pays for `key`: its answer, or None once its claim is gone or dead."""
        return wait_for_answer(self, key, poll_s, max_poll_s)

    # -- endpoints and counts -------------------------------------------------------------------------------------------
    def record_endpoint(self, base_url: str, model: str, endpoint: str) -> None:
        try:
            self._append("E", json.dumps([base_url, model, endpoint, time.time()], ensure_ascii=False))
        except (OSError, LLMError):  # bookkeeping for replay only
            pass

    def recorded_endpoint(self, base_url: str, model: str) -> str | None:
        """The endpoint last recorded for (base_url, model); else, if only one was recorded for the model, that one."""
        self.refresh()
        mine = [e for e in self._endpoints if e[0] == base_url and e[1] == model]
        if mine:
            return max(mine, key=lambda e: e[3])[2]
        names = {e[2] for e in self._endpoints if e[1] == model}
        return names.pop() if len(names) == 1 else None

    def bump(self, role: str, stage: str, counter: str, n: int = 1) -> None:
        """Add n to a counter of COUNTERS at once (not buffered: `sent` is what was paid for)."""
        if counter not in COUNTERS:
            raise ValueError(counter)
        try:
            self._append("N", json.dumps([[role, stage, counter, n]], ensure_ascii=False))
        except (OSError, LLMError):
            pass

    count_hit = CallCache.count_hit  # the same buffered hit counts; only `flush` writes them elsewhere

    def flush(self) -> None:
        """Write buffered hit counts."""
        with self._lock:
            pending, self._pending_hits = self._pending_hits, Counter()
            self._last_flush = time.monotonic()
        if not pending:
            return
        try:
            self._append("N", json.dumps([[r, s, "hits", n] for (r, s), n in pending.items()], ensure_ascii=False))
        except (OSError, LLMError):  # counts are bookkeeping; never fail a stage over them
            pass

    def __len__(self) -> int:
        self.refresh()
        return len(self._calls)

    def stats(self) -> list[StageStats]:
        """Hits, misses, recorded tokens, dollars and seconds per (role, stage), over every process's file."""
        self.flush()
        self.refresh()
        sums: dict[tuple, list] = {}
        for role, stage, p, c, o, d, t in self._sums.values():
            acc = sums.setdefault((role, stage), [0, 0, 0, 0, 0.0, 0.0])
            for i, v in enumerate((1, p, c, o, d, t)):
                acc[i] += v
        keys = set(sums) | {(r, s) for r, s, _ in self._counts}
        out = []
        for r, s in sorted(keys):
            n, p, c, o, d, t = sums.get((r, s), (0, 0, 0, 0, 0.0, 0.0))
            h, m, sent, short = (self._counts[(r, s, k)] for k in ("hits", "misses", "sent", "short_prompts"))
            out.append(StageStats(r, s, h, m, sent, short, n, p, c, o, d, t))
        return out

    # -- one file for the tools that read SQLite -----------------------------------------------------------------------
    def merge_into(self, db: str | Path) -> int:
        """Copy every recorded call, count and endpoint into the single-file cache `db` (created if missing), for the
        readers of one SQLite file (the site's transcripts, llm_cost, cache stats); calls already there are kept.
        Returns the number of calls added."""
        target = CallCache(db)
        conn = target._conn()
        names = sorted(n for n in os.listdir(self.path) if n.endswith(SUFFIX))
        before = len(target)
        try:
            conn.execute("BEGIN IMMEDIATE")
            for name in names:
                with open(self.path / name, "rb") as f:
                    data = f.read()
                for raw in data[: data.rfind(b"\n") + 1].splitlines():
                    _merge_line(conn, raw)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise LLMError(f"call cache {self.path}: cannot merge into {db} ({exc})") from exc
        return len(target) - before


def _merge_line(conn: sqlite3.Connection, raw: bytes) -> None:
    """One shard line into the tables of tailmem.llm.cache; a line that does not parse is skipped."""
    try:
        kind, *fields = raw.decode("utf-8").split("\t")
        if kind == "C":
            key, response, row = fields
            m = json.loads(row)
            json.loads(response)
            conn.execute(
                "INSERT OR IGNORE INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    key,
                    m["role"],
                    m["stage"],
                    m["backend"],
                    m["model"],
                    m["request"],
                    response,
                    int(m["prompt_tokens"]),
                    int(m["cached_tokens"]),
                    int(m["completion_tokens"]),
                    float(m["dollars"]),
                    float(m["latency_s"]),
                    float(m["created"]),
                ),
            )
            deltas = [(m["role"], m["stage"], "misses", 1)]
        elif kind == "N":
            deltas = [(str(r), str(s), str(c), int(n)) for r, s, c, n in json.loads(fields[0])]
        elif kind == "E":
            base_url, model, endpoint, created = json.loads(fields[0])
            conn.execute("INSERT OR REPLACE INTO endpoints VALUES (?,?,?,?)", (base_url, model, endpoint, created))
            return
        else:
            return
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return
    for role, stage, counter, n in deltas:
        if counter in ("hits", "misses", *COUNTERS):
            conn.execute(
                f"INSERT INTO counts (role, stage, {counter}) VALUES (?,?,?) "
                f"ON CONFLICT(role, stage) DO UPDATE SET {counter} = {counter} + excluded.{counter}",
                (role, stage, n),
            )
