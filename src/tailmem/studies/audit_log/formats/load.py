"""One entry point over every format: the log at `path` read as `fmt`, validated whole before it is returned."""

from __future__ import annotations

from pathlib import Path

from tailmem.errors import ConfigError
from tailmem.settings.audit_log import AuditLogGroup
from tailmem.studies.audit_log.events import AccessLog
from tailmem.studies.audit_log.group import FORMATS


def load_log(path: str | Path, fmt: str, s: AuditLogGroup) -> AccessLog:
    if fmt == "jsonl":
        from tailmem.studies.audit_log.formats.jsonl import read_jsonl

        return read_jsonl(path)
    if fmt == "inspect":
        from tailmem.studies.audit_log.formats.inspect_log import read_inspect

        return read_inspect(path, s.tools or {})
    if fmt == "longmemeval":
        from tailmem.studies.audit_log.formats.longmemeval import read_longmemeval

        return read_longmemeval(path, s.top_k)
    if fmt == "mem0":
        from tailmem.studies.audit_log.formats.mem0 import read_mem0

        return read_mem0(path)
    raise ConfigError(f"audit_log.format={fmt!r}: expected one of {list(FORMATS)}")
