"""How the audit gets the `audit_log` group: the schema's own object (tailmem.settings.audit_log), and the names
its checks accept, which the `audit-log` command and the readers take from here."""

from __future__ import annotations

from tailmem.settings.audit_log import FORMATS, NAME, RESULT_PARSERS, AuditLogGroup  # noqa: F401
from tailmem.settings.checks import typed


def settings(cfg) -> AuditLogGroup:
    """The `audit_log` group of `cfg` (a composed config, a stage's typed settings or plain data), checked by its
    schema (every error names its key)."""
    return typed(cfg, "audit_log", AuditLogGroup)
