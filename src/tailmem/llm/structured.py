"""A served role decoded under the embedded backend's rules, sent through the server's structured-output parameters.

Why: a table from an endpoint is comparable with the embedded model's only when the model answers under the same
rules. The embedded backend (tailmem.llm.backends.instruct) samples a predictor's reply under a grammar of the
state codes it may name, a policy's or executor's choice under a grammar of the option numbers, and each tool round
under a grammar whose sentences are one well-formed call of an offered tool or a final answer. A small served model
left free answers from a guess or writes its call as prose that no response field carries, and its tool loop runs
to the round cap. `llm.roles.<role>.structured_outputs` names how a server takes the same rules:

    gbnf         llama.cpp's server and llama-cpp-python's (`python -m llama_cpp.server`): the request's `grammar`
                 is the very GBNF the embedded backend samples under, so greedy decoding of the same prompt gives
                 the same tokens. The call comes back as text in `<tool_call>` tags (the tags Qwen2.5's and
                 Hermes' chat templates teach) and is parsed here; earlier calls go back to the server as that
                 text, so the history renders as the embedded backend renders it.
    vllm         vLLM's `structured_outputs` request field (vLLM 0.12 and later; earlier releases named the same
                 rules guided_choice / guided_json / guided_regex): `choice` for answer choices and option numbers,
                 `json` with the call's schema for a round that must call, `regex` for a round that must answer;
                 a round that may do either is left to vLLM's own tool-call parser (`--enable-auto-tool-choice`).
    json_schema  OpenAI's `response_format` with a JSON schema (ollama, OpenAI, most servers): an enum for answer
                 choices and option numbers, the call's schema for a round that must call, a free answer otherwise.

Only gbnf reproduces the embedded decoding exactly; vllm and json_schema keep the outputs well-formed and the
choices closed, with the server's own sampler and JSON layout.
"""

from __future__ import annotations

import json

from tailmem.errors import LLMError
from tailmem.llm.records import ToolCall
from tailmem.settings.llm import STRUCTURED_MODES as MODES

# What a request names its closed set of answers by (the predictor's state codes); never sent as is.
CHOICES = "answer_choices"
ANSWER_REGEX = r"[^<{\[ \n\x00][\s\S]*"  # the embedded answer grammar: opens neither a tag nor a JSON-looking call


def _extra(kwargs: dict, **fields) -> dict:
    """`kwargs` with `fields` merged into its extra_body (a role's own params.extra_body kept beside them)."""
    out = dict(kwargs)
    out["extra_body"] = {**(kwargs.get("extra_body") or {}), **fields}
    return out


def _choice_schema(choices: list[str]) -> dict:
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "answer",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {"answer": {"type": "string", "enum": list(choices)}},
                "required": ["answer"],
                "additionalProperties": False,
            },
        },
    }


def request(mode: str, role: str, kwargs: dict, tools: list[dict] | None, choices: list[str] | None) -> dict:
    """The request parameters that carry the embedded backend's constraints for this round, in `mode`'s terms.

    `choices`: the closed set of answers (answer_choices, or option numbers); `kwargs` holds the role's sampling
    parameters and the round's tool_choice."""
    from tailmem.llm.backends.instruct import call_schema, choices_grammar, grammar_text

    if mode not in MODES:
        raise LLMError(f"llm.roles.{role}.structured_outputs is {mode!r}; expected one of {MODES} or null")
    kwargs = dict(kwargs)
    tool_choice = kwargs.get("tool_choice", "auto")
    must_call = tools and (tool_choice == "required" or isinstance(tool_choice, dict))
    if mode == "gbnf":
        kwargs.pop("tool_choice", None)  # the grammar says it; a named tool would make the server use its own
        try:
            grammar = choices_grammar(choices) if choices else grammar_text(tools, tool_choice)
        except ImportError as exc:
            raise LLMError(
                f"role {role}: structured_outputs=gbnf builds the embedded backend's grammar with "
                f"llama-cpp-python; pip install -e '.[local]', or use structured_outputs=json_schema"
            ) from exc
        return _extra(kwargs, grammar=grammar) if grammar else kwargs
    if mode == "vllm":
        if choices:
            return _extra(kwargs, structured_outputs={"choice": list(choices)})
        # the call is read from the reply's text: the server's own tool parser stays out of it ("none")
        if must_call:
            return _extra({**kwargs, "tool_choice": "none"}, structured_outputs={"json": call_schema(tools)})
        if tools and tool_choice == "none":
            return _extra(kwargs, structured_outputs={"regex": ANSWER_REGEX})
        return kwargs
    if choices:
        return {**kwargs, "response_format": _choice_schema(choices)}
    if must_call:
        kwargs["tool_choice"] = "none"
        schema = {"name": "tool_call", "strict": False, "schema": call_schema(tools)}
        return {**kwargs, "response_format": {"type": "json_schema", "json_schema": schema}}
    return kwargs


def _json_call(text: str, names: set[str]) -> ToolCall | None:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or obj.get("name") not in names:
        return None
    args = obj.get("arguments") if isinstance(obj.get("arguments"), dict) else {}
    return ToolCall(id="call_0", name=obj["name"], arguments=args)


def parse(
    mode: str, content: str | None, tools: list[dict] | None, choices: list[str] | None
) -> tuple[str | None, tuple[ToolCall, ...]]:
    """(content, tool calls) of a constrained reply that the server returned as text: the call in `<tool_call>`
    tags (gbnf) or as a bare {"name", "arguments"} object (vllm, json_schema); an answer among `choices` from its
    {"answer": ...} wrapper (json_schema). A call naming no offered tool stays text."""
    from tailmem.llm.backends.instruct import parse_reply

    text = content or ""
    if choices and mode == "json_schema":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            return text.strip(), ()
        return (str(obj.get("answer", "")) if isinstance(obj, dict) else text.strip()), ()
    if not tools:
        return text.strip(), ()
    answer, calls = parse_reply(text, tools)
    if calls:
        return answer, calls
    call = _json_call(text.strip(), {t.get("function", t)["name"] for t in tools})
    return (None, (call,)) if call is not None else (text.strip(), ())


def _tojson(value) -> str:
    """JSON as Jinja's `tojson` filter writes it (keys sorted, <>&' escaped): how a chat template renders a call's
    arguments held as an object, which is how the embedded backend renders them."""
    text = json.dumps(value, sort_keys=True)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027")):
        text = text.replace(ch, esc)
    return text


def call_text(name: str, arguments) -> str:
    """A tool call as the Qwen2.5 / Hermes chat template renders it in the history."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            arguments = {"_unparsed": arguments}
    return f'<tool_call>\n{{"name": "{name}", "arguments": {_tojson(arguments)}}}\n</tool_call>'


def history(mode: str, messages: list[dict]) -> list[dict]:
    """The messages as a gbnf server should see them: each earlier call as the text the model wrote (OpenAI's wire
    format holds a call's arguments as a string, which a template's `tojson` would quote a second time)."""
    if mode != "gbnf" or not any(m.get("tool_calls") for m in messages):
        return messages
    out = []
    for m in messages:
        if m.get("role") == "assistant" and m.get("tool_calls"):
            calls = [c.get("function", c) for c in m["tool_calls"]]
            text = "\n".join(call_text(c["name"], c.get("arguments") or {}) for c in calls)
            m = {"role": "assistant", "content": f"{m['content']}\n{text}" if m.get("content") else text}
        out.append(m)
    return out
