"""Errors of the filesystem-memory area: a refused tool call is a ToolError the agent reads, not a crash."""

from tailmem.errors import TailmemError


class FsmemError(TailmemError):
    """A store, variant or stage problem; the message names the file or config key."""


class ToolError(FsmemError):
    """A tool call was refused or failed; the message is returned to the agent as the tool's output."""
