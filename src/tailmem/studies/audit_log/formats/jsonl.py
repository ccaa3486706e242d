"""tailmem's access-log format (docs/access-log.md): JSON lines, one read per line, validated strictly.

Required keys: `run` (string), `episode` (string or integer), `step` (integer >= 0), `item` (non-empty string);
optional: `tokens` (integer >= 0) and `source` (string). Any other key is refused, so a misspelt `tokens` is an
error and not a silently empty column. Blank lines are allowed; every error names the file and the line. Lines
end at `\n` only, and the file is read one line at a time, so a log larger than memory still reads.
"""

from __future__ import annotations

import json
from pathlib import Path

from tailmem.artifacts import atomic_path
from tailmem.studies.audit_log.events import AccessEvent, AccessLog, LogError

REQUIRED = ("run", "episode", "step", "item")
OPTIONAL = ("tokens", "source")


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_event(obj, path: Path, line: int) -> AccessEvent:
    """One line's object as an event, or LogError naming what is wrong with it."""
    if not isinstance(obj, dict):
        raise LogError(path, line, f"expected a JSON object, got {type(obj).__name__}")
    missing = [k for k in REQUIRED if k not in obj]
    if missing:
        raise LogError(path, line, f"missing key(s) {missing}; every event needs {list(REQUIRED)}")
    extra = sorted(set(obj) - set(REQUIRED) - set(OPTIONAL))
    if extra:
        raise LogError(path, line, f"unknown key(s) {extra}; allowed: {list(REQUIRED + OPTIONAL)}")
    if not isinstance(obj["run"], str) or not obj["run"]:
        raise LogError(path, line, f"run={obj['run']!r}: expected a non-empty string")
    if not (isinstance(obj["episode"], str) and obj["episode"]) and not _int(obj["episode"]):
        raise LogError(path, line, f"episode={obj['episode']!r}: expected a string or an integer")
    if not _int(obj["step"]) or obj["step"] < 0:
        raise LogError(path, line, f"step={obj['step']!r}: expected an integer >= 0")
    if not isinstance(obj["item"], str) or not obj["item"]:
        raise LogError(path, line, f"item={obj['item']!r}: expected a non-empty string (the item's id)")
    tokens = obj.get("tokens")
    if tokens is not None and (not _int(tokens) or tokens < 0):
        raise LogError(path, line, f"tokens={tokens!r}: expected an integer >= 0 or no key")
    source = obj.get("source")
    if source is not None and not isinstance(source, str):
        raise LogError(path, line, f"source={source!r}: expected a string or no key")
    return AccessEvent(obj["run"], str(obj["episode"]), obj["step"], obj["item"], tokens, source)


# Characters that str.splitlines() and many editors take for line ends though JSON allows them raw in a string:
# written escaped, so every tool sees one event per line.
SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


def log_file(path: str | Path) -> Path:
    """`path` if it is a readable file; LogError saying what it is otherwise."""
    path = Path(path)
    if path.is_dir():
        raise LogError(path, None, "is a directory; expected a log file")
    if not path.is_file():
        raise LogError(path, None, "file not found")
    return path


def json_lines(path: str | Path):
    """(line number, parsed object) of every non-blank line, streamed: lines end at `\n` only (JSON allows
    U+2028, U+2029 and U+0085 raw inside strings); LogError at the first line that is not UTF-8 or not JSON."""
    path = log_file(path)
    with open(path, "rb") as f:
        for number, blob in enumerate(f, start=1):
            try:
                raw = blob.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise LogError(path, number, f"not UTF-8 text ({exc.reason} at byte {exc.start + 1})") from None
            if not raw.strip():
                continue
            try:
                yield number, json.loads(raw)
            except json.JSONDecodeError as exc:
                raise LogError(
                    path, number, f"not JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})"
                ) from None


def _jsonl_events(path: Path):
    for n, obj in json_lines(path):
        yield parse_event(obj, path, n)


def read_jsonl(path: str | Path) -> AccessLog:
    """The whole log, validated before anything is returned (an error leaves nothing half read)."""
    path = Path(path)
    return AccessLog.scan(path, "jsonl", lambda: _jsonl_events(path))


def event_line(e: AccessEvent) -> str:
    """One event as one line: non-ASCII text kept readable, the line separators escaped."""
    text = json.dumps(e.to_dict(), ensure_ascii=False)
    for raw, escaped in SEPARATORS.items():
        text = text.replace(raw, escaped)
    return text + "\n"


def write_jsonl(path: str | Path, log: AccessLog) -> Path:
    """The events streamed to `path` (renamed into place once whole)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for e in log.events:
            f.write(event_line(e))
    return Path(path)
