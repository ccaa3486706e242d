"""Importer of mem0-style search logs: JSON lines, one `Memory.search` call each, with its `query` and the
memories it returned. The returned memories are either `results` (a list of objects with `id`, the shape
mem0's search returns, or that whole return value `{"results": [...]}`) or `memory_ids` (a list of ids). A read is
each returned memory. `run_id` names the run (default "mem0"); `user_id` (else `agent_id`) the episode (default
"0"); the step is the call's position within its episode. Any other key (score, timestamps) is ignored.
"""

from __future__ import annotations

from pathlib import Path

from tailmem.studies.audit_log.events import AccessEvent, AccessLog, LogError
from tailmem.studies.audit_log.formats.jsonl import json_lines


def returned_ids(obj: dict, path: Path, line: int) -> list[str]:
    if "memory_ids" in obj:
        raw = obj["memory_ids"]
        if not isinstance(raw, list):
            raise LogError(path, line, f"memory_ids={raw!r:.80}: expected a list of ids")
        items = raw
    elif "results" in obj:
        raw = obj["results"]
        if isinstance(raw, dict):  # the whole return value of mem0's search
            raw = raw.get("results")
        if not isinstance(raw, list):
            raise LogError(path, line, f"results: expected a list of {{id, memory, ...}}, got {raw!r:.80}")
        items = []
        for i, r in enumerate(raw):
            if not isinstance(r, dict) or "id" not in r:
                raise LogError(path, line, f"results[{i}]: expected an object with an `id`, got {r!r:.80}")
            items.append(r["id"])
    else:
        raise LogError(path, line, "expected `results` (mem0's search return) or `memory_ids` (a list of ids)")
    out = []
    for i, m in enumerate(items):
        if isinstance(m, bool) or not isinstance(m, (str, int)) or m == "":
            raise LogError(path, line, f"returned memory {i}: id {m!r}: expected a non-empty string or integer")
        out.append(str(m))
    return out


def _mem0_events(path: Path):
    steps = {}
    for line, obj in json_lines(path):
        if not isinstance(obj, dict):
            raise LogError(path, line, f"expected a JSON object (one search), got {type(obj).__name__}")
        if not isinstance(obj.get("query"), str):
            raise LogError(path, line, f"query={obj.get('query')!r:.80}: expected the search's query string")
        run = obj.get("run_id") or "mem0"
        episode = obj.get("user_id") or obj.get("agent_id") or "0"
        if not isinstance(run, str) or not isinstance(episode, (str, int)) or isinstance(episode, bool):
            raise LogError(path, line, f"run_id={run!r:.80} user_id={episode!r:.80}: expected strings")
        key = (run, str(episode))
        step = steps.get(key, 0)
        steps[key] = step + 1
        for m in returned_ids(obj, path, line):
            yield AccessEvent(run, str(episode), step, m, None, "mem0.search")


def read_mem0(path: str | Path) -> AccessLog:
    path = Path(path)
    return AccessLog.scan(path, "mem0", lambda: _mem0_events(path))
