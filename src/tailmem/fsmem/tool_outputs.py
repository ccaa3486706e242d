"""What a search agent's tool calls returned, recorded beside its answer set when it answered.

`answers.json` keeps each call as (tool, arguments, ok); the outputs themselves go to `tool_outputs.json.gz` in
the same folder, one entry per distinct call (the harness is read-only, so a call repeated within a set returns
the same text). The evidence columns (`tailmem.metrics.locomo_evidence`) and the site's question pages read them
instead of replaying every call through a fresh harness, which on the default scale was the site's whole 7.7
minutes. `answers.json` names the file with its sha256, so a file from another run is never taken for this
one's; a set without it (answered before this existed, or the file is gone) is replayed as before.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

FILE = "tool_outputs.json.gz"


def call_key(name: str, args) -> str:
    """One call's identity: the tool and its arguments, key order aside."""
    return json.dumps([name, args if isinstance(args, dict) else {}], sort_keys=True)


def write(folder: str | Path, outputs: dict[str, tuple[bool, str]]) -> dict:
    """Write the outputs (call_key -> (ok, text)); returns the reference answers.json keeps. Byte-identical for
    the same outputs (sorted keys, no gzip timestamp)."""
    from tailmem.artifacts import atomic_path  # here: the harness imports this module, and artifacts imports numpy

    blob = gzip.compress(json.dumps({"calls": outputs}, sort_keys=True, ensure_ascii=False).encode(), mtime=0)
    with atomic_path(Path(folder) / FILE) as tmp:
        tmp.write_bytes(blob)
    return {"file": FILE, "sha256": hashlib.sha256(blob).hexdigest(), "calls": len(outputs)}


def read(folder: str | Path, ref: dict | None) -> dict[str, tuple[bool, str]] | None:
    """The outputs an answer set recorded, or None when it has no reference, the file is missing, or its bytes
    are not the ones the reference names (then the caller replays)."""
    if not isinstance(ref, dict) or ref.get("file") != FILE:
        return None
    path = Path(folder) / FILE
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(blob).hexdigest() != ref.get("sha256"):
        return None
    calls = json.loads(gzip.decompress(blob))["calls"]
    return {k: (bool(ok), str(text)) for k, (ok, text) in calls.items()}
