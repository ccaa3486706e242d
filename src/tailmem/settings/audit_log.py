"""The `audit_log` group (configs/audit_log/default.yaml): the external access log one run audits, how an
inspect_ai log's tool calls become reads, and the list of logs the Snakemake rule `audit_log` audits.

The typed runtime objects and their rules are `tailmem.accesslog.settings` (the audit reads them); this is the
schema Hydra merges the YAML into, and its check runs those same rules, so each rule has one home.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from omegaconf import MISSING


@dataclass
class ToolSpec:
    """One tool's reads: the item is the call's `argument`, or the items are in its output (`result`)."""

    argument: Optional[str] = None
    result: Optional[str] = None


@dataclass
class LogSpec:
    name: str = MISSING  # the artifact folder <results>/audit_log/<name>
    file: str = MISSING  # relative to the repository, or absolute
    format: str = MISSING  # tailmem.accesslog.settings.FORMATS


@dataclass
class AuditLogGroup:
    file: Optional[str] = MISSING  # the log one run audits (python -m tailmem audit-log FILE sets it)
    format: str = MISSING
    name: Optional[str] = MISSING
    top_k: int = MISSING  # longmemeval: a read is a corpus item ranked within the top k
    tools: Optional[Dict[str, ToolSpec]] = MISSING
    logs: Optional[List[LogSpec]] = MISSING

    def __post_init__(self) -> None:
        from tailmem.accesslog.settings import settings

        tools = {k: {"argument": t.argument, "result": t.result} for k, t in (self.tools or {}).items()}
        tools = {k: {f: v for f, v in t.items() if v is not None} for k, t in tools.items()}
        logs = [{"name": e.name, "file": e.file, "format": e.format} for e in (self.logs or [])]
        settings(
            {
                "audit_log": {
                    "file": self.file,
                    "format": self.format,
                    "name": self.name,
                    "top_k": self.top_k,
                    "tools": tools,
                    "logs": logs,
                }
            }
        )
