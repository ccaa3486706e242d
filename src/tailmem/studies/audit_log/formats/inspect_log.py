"""Importer of inspect_ai eval logs (`.eval` and `.json`), read with inspect_ai's own `read_eval_log`.

The reads are the calls of the tools the user names in `audit_log.tools`: `{read_file: {argument: path}}` makes
each `read_file` call one read of the item its `path` argument names (a list argument is one read per entry);
`{search: {result: json}}` makes each `search` call one read per id in its output (a JSON list of ids, or of
objects with an `id`; `result: lines` takes one id per non-empty line). Calls of other tools are not reads.

Run = the eval's run id; episode = `<sample id>:<epoch>`; step = the assistant turn that made the call (calls made
in parallel share a step); source = the tool's name. A call whose output is an error reads nothing (counted in
the log's notes). An error names the file and the sample.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from tailmem.errors import ConfigError
from tailmem.settings.audit_log import ToolSpec
from tailmem.studies.audit_log.events import AccessEvent, AccessLog, LogError
from tailmem.studies.audit_log.formats.jsonl import log_file

SUFFIXES = (".eval", ".json")


def _ids(value, where: str, path: Path) -> list[str]:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if isinstance(v, dict) and "id" in v:
            v = v["id"]
        if isinstance(v, bool) or not isinstance(v, (str, int)) or v == "":
            raise LogError(path, where, f"expected an item id (a string or integer), got {v!r:.80}")
        out.append(str(v))
    return out


def _result_ids(text: str, parser: str, where: str, path: Path) -> list[str]:
    if parser == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LogError(
            path, where, f"tool output is not JSON ({exc.msg}): {text!r:.80}; use `result: lines` for one id a line"
        ) from exc
    if isinstance(value, dict) and isinstance(value.get("results"), list):
        value = value["results"]
    if not isinstance(value, list):
        raise LogError(path, where, f"tool output: expected a JSON list of ids, got {text!r:.80}")
    return _ids(value, where, path)


def read_inspect(path: str | Path, tools: Mapping[str, ToolSpec]) -> AccessLog:
    """Every configured tool call of every sample as reads; the whole log is read before anything is returned."""
    from inspect_ai.log import read_eval_log

    path = Path(path)
    if not tools:
        raise ConfigError(
            "audit_log.tools: empty; name the tools whose calls are reads, e.g. "
            "audit_log.tools={read_file: {argument: path}} (docs/access-log.md)"
        )
    if path.suffix not in SUFFIXES:
        raise LogError(path, None, f"expected an inspect_ai log ending in {' or '.join(SUFFIXES)}")
    log_file(path)
    try:
        log = read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # noqa: BLE001 - inspect_ai raises several types for a foreign or truncated file
        raise LogError(path, None, f"not an inspect_ai eval log ({type(exc).__name__}: {exc})") from exc
    if not log.samples:
        raise LogError(path, None, f"the log has no samples (status {log.status!r}); nothing was run or saved")
    by_name = dict(tools)
    run = log.eval.run_id or log.eval.eval_id
    events, skipped = [], Counter()
    for sample in log.samples:
        where = f"sample {sample.id} epoch {sample.epoch}"
        outputs = {m.tool_call_id: m for m in sample.messages if m.role == "tool"}
        turn = -1
        for message in sample.messages:
            if message.role != "assistant":
                continue
            turn += 1
            for call in message.tool_calls or []:
                spec = by_name.get(call.function)
                if spec is None:
                    continue
                at = f"{where}, call {call.id} of {call.function}"
                if spec.argument is not None:
                    if spec.argument not in (call.arguments or {}):
                        raise LogError(
                            path,
                            at,
                            f"no argument {spec.argument!r} (arguments: "
                            f"{sorted(call.arguments or {})}); check audit_log.tools",
                        )
                    items = _ids(call.arguments[spec.argument], at, path)
                else:
                    output = outputs.get(call.id)
                    if output is None or output.error is not None:
                        skipped[f"{call.function}: no output or an error"] += 1
                        continue
                    items = _result_ids(output.text, spec.result, at, path)
                events += [AccessEvent(run, f"{sample.id}:{sample.epoch}", turn, i, None, call.function) for i in items]
    notes = tuple(f"{n} call(s) skipped ({why})" for why, n in skipped.items())
    return AccessLog.scan(path, "inspect", lambda: events, notes=notes)
