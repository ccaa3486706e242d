"""Shell: one `bash` tool over an isolated, read-only copy of the store (see `tailmem.fsmem.sandbox`)."""

from __future__ import annotations

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.sandbox import Limits, Sandbox
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.base import Harness, Tool, params

MAX_COMMAND_CHARS = 4000


class ShellHarness(Harness):
    def close(self) -> None:
        self.sandbox.close()


def shell(store: Store, limits: Limits = Limits()) -> Harness:
    sandbox = Sandbox(store.root, limits)

    def bash(command: str) -> str:
        if not command.strip() or len(command) > MAX_COMMAND_CHARS:
            raise ToolError(f"command: expected 1 to {MAX_COMMAND_CHARS} characters")
        r = sandbox.run(command)
        if r.timed_out:
            raise ToolError(f"command killed after {limits.timeout_s:g}s (time limit); output so far:\n{r.output}")
        note = f"\n[output truncated at {limits.max_output_chars} characters]" if r.truncated else ""
        return f"{r.output}{note}\n[exit {r.exit_code}]"

    h = ShellHarness("shell")
    h.sandbox = sandbox
    h.add(Tool(
        "bash",
        "Run a bash command in a sandbox. The memory store is read-only at /memory (the working directory); "
        "/scratch is writable; there is no network.",
        params({"command": ("string", "bash command")}),
        bash,
    ))
    return h
