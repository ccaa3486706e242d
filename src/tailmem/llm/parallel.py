"""Independent units of a model stage, run side by side: the in-job concurrency of every stage.

A stage whose units do not depend on each other (a replay's planned predictions, an fsmem question with its own
harness trace and its judge calls, a game) hands them to `run_units` with `workers_for(client, n)` threads. The
answers come back in unit order and every request is the one the sequential loop sends, so the rows, their order
and the call cache's hashes do not depend on the concurrency: only the wall time does.

How many at once, one knob: `llm.concurrency` of the role (or the group), capped by the number of units, by the
requests its server decodes at once where the preset states them (`server_slots`: a unit beyond them would only
wait for a slot, and its turns would evict the prompt prefix the server keeps for the next call of the unit before
it), and by the share of the run-wide cap this job was granted (`TAILMEM_LLM_SLOTS`, which a model rule sets from
its Snakemake resource `llm_slots`; `snakemake --resources llm_slots=N` caps the calls in flight across all jobs).

In-process models take one unit at a time. The embedded llama.cpp model (backend `instruct`, and the scoring
backend `local`) is one process-local object that is not thread-safe: its calls already serialize on a lock, and
threads would reach that lock in any order, losing the KV prefix one call shares with the next (its measured best
is one thread per job and several jobs, each with its own model). So `workers_for` gives them 1, and replay (no
model, answers from the cache) and programmatic roles get the configured concurrency.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from tailmem.errors import ConfigError
from tailmem.llm.backends.base import KINDS, kind_of

T = TypeVar("T")
R = TypeVar("R")

SLOTS_ENV = "TAILMEM_LLM_SLOTS"  # the job's granted share of `--resources llm_slots=N` (0 or unset: no cap)


def granted_slots() -> int | None:
    """The calls in flight this job may hold (`TAILMEM_LLM_SLOTS`), None when no run-wide cap applies."""
    raw = os.environ.get(SLOTS_ENV, "").strip()
    if not raw:
        return None
    try:
        slots = int(raw)
    except ValueError:
        raise ConfigError(f"${SLOTS_ENV}={raw!r}: expected a whole number of call slots") from None
    return slots if slots > 0 else None


def in_process(client) -> bool:
    """Whether `client`'s model runs in this process (its calls serialize on the model's lock)."""
    kind = KINDS.get(getattr(client, "backend", None))
    return kind is not None and kind.embedded


def in_flight(settings, *limits: int | None) -> int:
    """The calls a role may hold in flight at once, at least 1: the least of its `concurrency`, its server's
    `server_slots` (where the preset states them) and `limits` (None: none). The one place the cap is taken: a rule
    declares it with no limits (`llm_slots`), the job takes it with its units and its granted slots (`workers_for`),
    so a job never runs more units than its rule asked slots for."""
    bounds = (getattr(settings, "concurrency", 1) or 1, getattr(settings, "server_slots", None), *limits)
    return max(1, min(int(b) for b in bounds if b is not None))


def workers_for(client, units: int) -> int:
    """Threads for `units` independent units of `client`'s role: `in_flight` of its settings, its units and this
    job's granted slots; 1 for an in-process model or no client (a programmatic agent calls no model)."""
    if client is None or units <= 1 or in_process(client):
        return 1
    return in_flight(getattr(client, "settings", None), units, granted_slots())


def units_workers(units: int, *clients) -> int:
    """Threads for `units` independent units that each call every one of `clients` (None: a programmatic role):
    the fewest any of them allows, so a unit that also calls an in-process model runs them one at a time."""
    playing = [c for c in clients if c is not None]
    return min((workers_for(c, units) for c in playing), default=1)


def llm_slots(cfg, roles) -> int:
    """The Snakemake resource `llm_slots` a job declares: the most calls it holds in flight to a shared endpoint,
    the largest `in_flight` among `roles` played there (a job's units call its roles in turn), 0 when none is
    (an in-process model, a programmatic agent, replay from the cache)."""
    from tailmem.llm.group import roles as played
    from tailmem.llm.group import settings as llm_settings

    settings = played(llm_settings(cfg))
    return max(
        (in_flight(settings[r]) for r in roles if r in settings and kind_of(settings[r].backend).served),
        default=0,
    )


def run_units(fn: Callable[[T], R], units: Sequence[T], workers: int, name: str = "unit") -> list[R]:
    """fn(unit) for every unit, `workers` at a time, results in unit order. Every unit runs to its end even if
    another fails (its calls are recorded in the cache); the first failure in unit order is then raised."""
    units = list(units)
    if workers <= 1 or len(units) <= 1:
        results, errors = [], []
        for u in units:
            try:
                results.append(fn(u))
                errors.append(None)
            except Exception as exc:  # the other units still run, as they do side by side
                results.append(None)
                errors.append(exc)
    else:
        with ThreadPoolExecutor(max_workers=min(workers, len(units)), thread_name_prefix=f"tailmem-{name}") as pool:
            futures = [pool.submit(fn, u) for u in units]
            errors = [f.exception() for f in futures]
            results = [None if e is not None else f.result() for f, e in zip(futures, errors)]
    for exc in errors:
        if exc is not None:
            raise exc
    return results
