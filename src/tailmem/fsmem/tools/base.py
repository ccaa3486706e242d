"""A tool is a schema plus a function; a harness is a named set of tools with one dispatcher.

The dispatcher is the only way an agent (model-driven or programmatic) touches a store, so argument checks,
refusals and accounting happen in one place. Refusals come back as tool output, never as crashes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from tailmem.fsmem.errors import ToolError
from tailmem.fsmem.tool_outputs import call_key

log = logging.getLogger(__name__)

MAX_ARG_CHARS = 64 * 1024
# Paper 2 (C.1) never clips a file view; this is only a safety cap against a runaway output (~100k tokens), and
# every hit is counted (`Harness.truncations`) and logged. Model roles set it from llm.roles.<role>.tool_output_max_chars.
MAX_OUTPUT_CHARS = 400_000

# How the search tools say they matched nothing (reading.grep, ranked.search_tool, chunks.chunk_retrieval).
NOTHING_FOUND = ("no match for ", "no file matches ", "no chunk matches ")

_JSON_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list, "object": dict, "number": (int, float)}


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict  # JSON schema of the arguments object
    fn: Callable[..., str]
    # The call form offered to a small model (Harness.schemas(compact=True)): only these arguments (None: all),
    # and these values for the hidden ones. A 1.5B model decoding under the schema's grammar fills every
    # optional argument it is shown (a grep scoped to a guessed file, max_results 1); the hidden ones keep the
    # tool's behaviour, with a shorter page where a default would flood its context.
    compact: tuple[str, ...] | None = None
    compact_defaults: dict = field(default_factory=dict)
    compact_properties: dict = field(default_factory=dict)  # schema overrides of kept arguments (e.g. one word)
    # Offered to a small model at all. toc and read_section are not: the 1.5B searcher called read_section with
    # the question as the heading, then toc, and spent its rounds (7 of 15 LoCoMo questions); view reads a file.
    small: bool = True

    def schema(self, compact: bool = False) -> dict:
        """The OpenAI function-calling schema (`compact`: the small-model form)."""
        parameters = self.parameters
        if compact and self.compact is not None:
            props = {
                k: {**v, **self.compact_properties.get(k, {})}
                for k, v in parameters.get("properties", {}).items()
                if k in self.compact
            }
            parameters = {
                **parameters,
                "properties": props,
                "required": [k for k in parameters.get("required", []) if k in props],
            }
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }


@dataclass(frozen=True)
class ToolResult:
    name: str
    ok: bool
    output: str
    error_type: str | None = None  # the exception's class name when ok is False
    malformed: bool = False  # the call itself was bad: an unknown tool, or arguments its schema refuses

    @property
    def found(self) -> bool:
        """The call ran and returned store content (not a search that matched nothing)."""
        return self.ok and not self.output.startswith(NOTHING_FOUND)


def params(required: dict[str, tuple[str, str]], optional: dict[str, tuple[str, str]] | None = None) -> dict:
    """A JSON schema from {name: (type, description)} maps; arrays are arrays of integers (line ranges)."""
    props = {}
    for name, (typ, desc) in {**required, **(optional or {})}.items():
        props[name] = {"type": typ, "description": desc}
        if typ == "array":
            props[name]["items"] = {"type": "integer"}
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


@dataclass
class Harness:
    """A named tool set over one store. `calls` and `chars_read` accumulate for the accounting; `trace` keeps
    every call's (tool, arguments, ok) so store-access audits can count what the agent read."""

    name: str
    tools: dict[str, Tool] = field(default_factory=dict)
    trace: list = field(default_factory=list)
    calls: int = 0
    errors: int = 0
    error_types: dict = field(default_factory=dict)  # exception class name -> failed calls
    chars_read: int = 0
    truncations: int = 0  # outputs cut at max_output_chars
    malformed: int = 0  # failed calls that named no offered tool or whose arguments the schema refused
    max_output_chars: int = MAX_OUTPUT_CHARS
    # set to {} to record call_key -> (ok, output) of each distinct call (a read-only harness: tool_outputs.write)
    outputs: dict | None = None

    def add(self, tool: Tool) -> None:
        self.tools[tool.name] = tool

    def schemas(self, compact: bool = False, only: tuple[str, ...] | None = None) -> list[dict]:
        """The tools' schemas; `compact`: the small model's, of the tools it is offered (Tool.small); `only`: of
        these tools alone (a role that needs fewer than the harness has)."""
        offered = [t for t in self.tools.values() if (t.small or not compact) and (only is None or t.name in only)]
        return [t.schema(compact) for t in offered]

    def small_tools(self) -> list[str]:
        """The names of the tools a small model is offered."""
        return [name for name, t in self.tools.items() if t.small]

    def compact_arguments(self, name: str, arguments: Any) -> Any:
        """A small model's call completed with the values its compact schema hides (Tool.compact_defaults)."""
        tool = self.tools.get(name)
        if tool is None or not isinstance(arguments, dict) or not tool.compact_defaults:
            return arguments
        return {**{k: v for k, v in tool.compact_defaults.items() if k not in arguments}, **arguments}

    def call(self, name: str, arguments: Any) -> ToolResult:
        """Check the arguments against the schema, run the tool, and turn refusals into an error output."""
        self.calls += 1
        entry = [name, arguments if isinstance(arguments, dict) else {}, False]
        self.trace.append(entry)
        result = self._run(name, arguments, entry)
        if self.outputs is not None:
            self.outputs.setdefault(call_key(name, entry[1]), (result.ok, result.output))
        return result

    def _run(self, name: str, arguments: Any, entry: list) -> ToolResult:
        try:  # a malformed call: the model's fault of form, counted apart from what a well-formed call ran into
            tool = self.tools.get(name)
            if tool is None:
                raise ToolError(f"unknown tool {name!r}; this harness offers {sorted(self.tools)}")
            kwargs = check_arguments(tool, arguments)
        except ToolError as exc:
            self.malformed += 1
            return replace(self._failed(name, exc, f"error: {exc}"), malformed=True)
        try:
            out = tool.fn(**kwargs)
            out = self.clip(name, out)
            self.chars_read += len(out)
            entry[2] = True
            return ToolResult(name, True, out)
        except ToolError as exc:
            return self._failed(name, exc, f"error: {exc}")
        except Exception as exc:  # any failure of a tool is the agent's tool error, never a crash of the host
            return self._failed(name, exc, f"error: {name}: {type(exc).__name__}: {str(exc)[:2000]}")

    def _failed(self, name: str, exc: BaseException, text: str) -> ToolResult:
        """Count a failed call and record its exception type (`error_types`, `ToolResult.error_type`)."""
        self.errors += 1
        kind = type(exc).__name__
        self.error_types[kind] = self.error_types.get(kind, 0) + 1
        return ToolResult(name, False, text, kind)

    def clip(self, name: str, out: str) -> str:
        """The output within the safety cap; a cut is counted and logged, and the agent is told where it was cut."""
        if len(out) <= self.max_output_chars:
            return out
        self.truncations += 1
        log.warning(
            "harness %s: %s output of %d characters cut at the safety cap of %d (tool_output_max_chars)",
            self.name,
            name,
            len(out),
            self.max_output_chars,
        )
        return (
            out[: self.max_output_chars] + f"\n[output truncated at {self.max_output_chars} of {len(out)} characters]"
        )

    def close(self) -> None:
        """Release resources (the Shell harness removes its copy)."""


def check_arguments(tool: Tool, arguments: Any) -> dict:
    if not isinstance(arguments, dict):
        raise ToolError(f"{tool.name}: arguments must be a JSON object, got {type(arguments).__name__}")
    props = tool.parameters.get("properties", {})
    unknown = set(arguments) - set(props)
    if unknown:
        raise ToolError(f"{tool.name}: unknown argument(s) {sorted(unknown)}; expected {sorted(props)}")
    missing = [k for k in tool.parameters.get("required", []) if k not in arguments]
    if missing:
        raise ToolError(f"{tool.name}: missing argument(s) {missing}")
    for key, value in arguments.items():
        want = props[key]["type"]
        ok = isinstance(value, _JSON_TYPES[want]) and not (want in ("integer", "number") and isinstance(value, bool))
        if not ok:
            raise ToolError(f"{tool.name}: argument {key!r} must be {want}, got {type(value).__name__}")
        if isinstance(value, str) and len(value) > MAX_ARG_CHARS:
            raise ToolError(f"{tool.name}: argument {key!r} has {len(value)} characters, at most {MAX_ARG_CHARS}")
    return dict(arguments)
