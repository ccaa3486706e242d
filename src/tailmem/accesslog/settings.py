"""The typed `audit_log` config group: which external access log is audited, how its reads are found, and the
list of logs the Snakemake rule audits.

A module of its own, importing nothing heavy, so the group's schema (tailmem.settings.audit_log) runs the same rules
without loading inspect_ai, powerlaw or pandas. Every error names its key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tailmem.errors import ConfigError

FORMATS = ("jsonl", "inspect", "longmemeval", "mem0")
# how a named tool's call is read: `argument` = item(s) in that call argument; `result` = item(s) in its output
TOOL_KEYS = ("argument", "result")
RESULT_PARSERS = ("json", "lines")  # the output as a JSON list of ids (or of objects with `id`), or one id a line
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # a log's name is a folder name and a Snakemake wildcard


@dataclass(frozen=True)
class ToolRead:
    """How one inspect_ai tool's calls become reads: the items are the call's `argument` value (a string or a list
    of strings), or its output parsed as `result` says."""

    tool: str
    argument: str | None = None
    result: str | None = None

    def __post_init__(self):
        key = f"audit_log.tools.{self.tool}"
        if (self.argument is None) == (self.result is None):
            raise ConfigError(
                f"{key}: expected exactly one of `argument: <name>` (the item is that argument) or "
                f"`result: {'|'.join(RESULT_PARSERS)}` (the items are in the tool's output)"
            )
        if self.argument is not None and (not isinstance(self.argument, str) or not self.argument):
            raise ConfigError(f"{key}.argument={self.argument!r}: expected an argument name")
        if self.result is not None and self.result not in RESULT_PARSERS:
            raise ConfigError(f"{key}.result={self.result!r}: expected one of {list(RESULT_PARSERS)}")


@dataclass(frozen=True)
class LogEntry:
    """One log of the Snakemake rule's list: its name (the artifact folder), file and format."""

    name: str
    file: str
    format: str

    def __post_init__(self):
        if not isinstance(self.name, str) or not NAME.match(self.name):
            raise ConfigError(f"audit_log.logs: name {self.name!r}: expected letters, digits, '.', '_' or '-'")
        if not isinstance(self.file, str) or not self.file:
            raise ConfigError(f"audit_log.logs: {self.name}: file {self.file!r}: expected a path")
        if self.format not in FORMATS:
            raise ConfigError(f"audit_log.logs: {self.name}: format {self.format!r}: expected one of {list(FORMATS)}")


@dataclass(frozen=True)
class AuditLogSettings:
    """The validated `audit_log` group (the tail audit's own settings stay in the `audit` group)."""

    file: str | None = None
    format: str = "jsonl"
    name: str | None = None
    top_k: int = 5
    tools: tuple[ToolRead, ...] = ()
    logs: tuple[LogEntry, ...] = ()

    def __post_init__(self):
        if self.file is not None and (not isinstance(self.file, str) or not self.file):
            raise ConfigError(f"audit_log.file={self.file!r}: expected a path or null")
        if self.format not in FORMATS:
            raise ConfigError(f"audit_log.format={self.format!r}: expected one of {list(FORMATS)}")
        if self.name is not None and (not isinstance(self.name, str) or not NAME.match(self.name)):
            raise ConfigError(f"audit_log.name={self.name!r}: expected letters, digits, '.', '_' or '-' (or null)")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 1:
            raise ConfigError(f"audit_log.top_k={self.top_k!r}: expected an integer >= 1")
        names = [e.name for e in self.logs]
        if len(set(names)) != len(names):
            raise ConfigError(
                f"audit_log.logs: names repeat {sorted({n for n in names if names.count(n) > 1})}; "
                "each log needs its own folder"
            )

    def tool(self, name: str) -> ToolRead | None:
        return next((t for t in self.tools if t.tool == name), None)


def read_tools(value) -> tuple[ToolRead, ...]:
    """`audit_log.tools`: a mapping tool name -> {argument: name} or {result: json|lines}."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(
            f"audit_log.tools={value!r}: expected a mapping tool name -> {{argument: ...}} or {{result: ...}}"
        )
    out = []
    for tool, spec in value.items():
        if not isinstance(spec, dict) or set(spec) - set(TOOL_KEYS):
            raise ConfigError(f"audit_log.tools.{tool}={spec!r}: expected a mapping with `argument` or `result`")
        out.append(ToolRead(str(tool), spec.get("argument"), spec.get("result")))
    return tuple(out)


def read_logs(value) -> tuple[LogEntry, ...]:
    """`audit_log.logs`: a list of {name, file, format}."""
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"audit_log.logs={value!r}: expected a list of {{name, file, format}}")
    out = []
    for i, entry in enumerate(value):
        if not isinstance(entry, dict) or set(entry) != {"name", "file", "format"}:
            raise ConfigError(f"audit_log.logs: item {i} ({entry!r}): expected exactly the keys name, file, format")
        out.append(LogEntry(entry["name"], entry["file"], entry["format"]))
    return tuple(out)


KEYS = ("file", "format", "name", "top_k", "tools", "logs")


def settings(cfg) -> AuditLogSettings:
    """Validate cfg.audit_log (a DictConfig or a plain dict) before any work."""
    from tailmem.settings.checks import composed

    cfg = composed(cfg)
    group = cfg.get("audit_log") if hasattr(cfg, "get") else None
    if group is None:
        raise ConfigError("audit_log: missing config group (configs/audit_log/default.yaml)")
    try:
        from omegaconf import OmegaConf

        if OmegaConf.is_config(group):
            group = OmegaConf.to_container(group, resolve=True)
    except ImportError:  # pragma: no cover - omegaconf is a dependency
        pass
    unknown = sorted(set(group) - set(KEYS))
    if unknown:
        raise ConfigError(f"audit_log.{unknown[0]}: unknown key; expected one of {list(KEYS)}")
    return AuditLogSettings(
        file=group.get("file"),
        format=group.get("format", "jsonl"),
        name=group.get("name"),
        top_k=group.get("top_k", 5),
        tools=read_tools(group.get("tools")),
        logs=read_logs(group.get("logs")),
    )
