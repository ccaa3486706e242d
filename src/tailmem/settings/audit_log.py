"""The `audit_log` group (configs/audit_log/default.yaml): the external access log one run audits, how an
inspect_ai log's tool calls become reads, and the list of logs the Snakemake rule `audit_log` audits.

The audit reads this object itself (tailmem.studies.audit_log.group.settings). The names its checks accept (formats,
result parsers, the folder-name pattern) are defined here, below the readers, so checking the group loads neither
inspect_ai nor powerlaw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems

FORMATS = ("jsonl", "inspect", "longmemeval", "mem0")
RESULT_PARSERS = ("json", "lines")  # the output as a JSON list of ids (or of objects with `id`), or one id a line
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # a log's name is a folder name and a Snakemake wildcard


def _given(value) -> bool:
    return not (isinstance(value, str) and value == MISSING)


@dataclass
class ToolSpec:
    """One tool's reads: the item is the call's `argument`, or the items are in its output (`result`). Its checks
    are the group's, which knows the tool's name (its key in `audit_log.tools`)."""

    argument: Optional[str] = None
    result: Optional[str] = None


@dataclass
class LogSpec:
    name: str = MISSING  # the artifact folder <results>/audit_log/<name>
    file: str = MISSING  # relative to the repository, or absolute
    format: str = MISSING  # FORMATS

    def __post_init__(self) -> None:
        p = Problems("audit_log.logs")
        if _given(self.name) and not NAME.match(self.name):
            p.add(f"audit_log.logs: name {self.name!r}: expected letters, digits, '.', '_' or '-'")
        if _given(self.file) and not self.file:
            p.add(f"audit_log.logs: {self.name}: file {self.file!r}: expected a path")
        if _given(self.format) and self.format not in FORMATS:
            p.add(f"audit_log.logs: {self.name}: format {self.format!r}: expected one of {list(FORMATS)}")
        p.raise_any()


@dataclass
class AuditLogGroup:
    file: Optional[str] = MISSING  # the log one run audits (python -m tailmem audit-log FILE sets it)
    format: str = MISSING  # FORMATS
    name: Optional[str] = MISSING  # the artifact folder; null = derived from the file's name
    top_k: int = MISSING  # longmemeval: a read is a corpus item ranked within the top k
    tools: Optional[Dict[str, ToolSpec]] = MISSING  # inspect: tool name -> where its reads' items are
    logs: Optional[List[LogSpec]] = MISSING

    def __post_init__(self) -> None:
        p = Problems("audit_log")
        if self.file is not None and _given(self.file) and not self.file:
            p.check("file", self.file, "expected a path or null")
        p.one_of("format", self.format, FORMATS)
        if self.name is not None and _given(self.name) and not NAME.match(self.name):
            p.check("name", self.name, "expected letters, digits, '.', '_' or '-' (or null)")
        p.integer("top_k", self.top_k, lo=1)
        for tool, spec in (self.tools if _given(self.tools) and self.tools else {}).items():
            key = f"audit_log.tools.{tool}"
            if (spec.argument is None) == (spec.result is None):
                p.add(
                    f"{key}: expected exactly one of `argument: <name>` (the item is that argument) or "
                    f"`result: {'|'.join(RESULT_PARSERS)}` (the items are in the tool's output)"
                )
            elif spec.argument is not None and not spec.argument:
                p.add(f"{key}.argument={spec.argument!r}: expected an argument name")
            elif spec.result is not None and spec.result not in RESULT_PARSERS:
                p.add(f"{key}.result={spec.result!r}: expected one of {list(RESULT_PARSERS)}")
        names = [e.name for e in (self.logs if _given(self.logs) and self.logs else [])]
        if len(set(names)) != len(names):
            p.add(
                f"audit_log.logs: names repeat {sorted({n for n in names if names.count(n) > 1})}; "
                "each log needs its own folder"
            )
        p.raise_any()
