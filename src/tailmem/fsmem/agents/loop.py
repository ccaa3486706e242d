"""The model-driven agent loop: ask the model, run the tool calls it makes, feed results back, until it
answers or the round cap is hit. A round is one model call that asked for tools.

Paper 2's run settings (its section C.1) live here and in the role's settings: the assistant turn that asked for
tools goes back with content "" (never null, which llama.cpp's server rejects); tool output is capped only by
the role's `tool_output_max_chars` safety cap, each hit counted; a transcript whose prompt passes
`compact_prompt_tokens` is compacted into a running summary plus the three most recent turns, each compaction
counted and logged; an episode offered tools that never calls one is warned about and counted (`no_tool_call`).

The protocol a small model can drive. A role that must ground its answer in the store (the searcher,
whenever its harness offers tools: `require_lookup`) is sent `tool_choice="required"` until one of its tool calls
has returned store content (round 1 always, later rounds "auto"; a malformed call or a search that matched
nothing is no lookup: `ToolResult.found`); an answer offered before that is refused (the model is told to
look up first), counted (`refused_answers`) and charged to the round cap, so it is never accepted. At the cap the
tools are withdrawn (the embedded model: kept in the prompt, `tool_choice="none"`, so the KV prefix holds) and
the model must answer from what it has; an answer with nothing looked up is then
flagged (`looked_up` False). Malformed calls (an unknown tool, arguments the schema refuses) are counted by the
harness (`Harness.malformed`) and come back to the model as tool errors; a final reply left empty is `no_answer`.
The embedded backend samples each round under a grammar of the offered tools, so its replies are well-formed
calls or answers; an OpenAI endpoint honours `tool_choice` itself. The embedded model is offered each tool's
compact call form (`Tool.compact`: the essential arguments, hidden ones at small-page defaults).

A prompt that outgrows the model's context window (one long tool output can do it) ends its episode with an
empty reply, counted (`context_overflow`), so the item it served is scored as failed and the stage goes on.
"""

from __future__ import annotations

import json
import logging

from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.agents.models import compact as small_model
from tailmem.fsmem.tools.base import Harness
from tailmem.llm.backends.base import ContextOverflow
from tailmem.roles import SEARCHER

log = logging.getLogger(__name__)
CAP_NOTICE = "Tool budget exhausted. Give your final answer now from what you have read."
LOOKUP_NOTICE = "Do not answer yet: look it up in the store first with one of your tools."
LOOKUP_ROLES = (SEARCHER,)  # roles whose protocol requires evidence before an answer
COMPACT_REQUEST = (
    "Your context is nearly full. Write a summary of your work so far that lets you continue without the earlier "
    "messages: what you were asked, what you found (with file paths, line numbers and exact facts), what you "
    "changed, and what remains to do. Reply with the summary only."
)
SUMMARY_HEADING = "Summary of your work so far (earlier turns were compacted):"
KEEP_TURNS = 3


def _turns(messages: list[dict]) -> list[list[dict]]:
    """The messages after the head (system, user), grouped per turn: an assistant message and its tool results."""
    turns: list[list[dict]] = []
    for m in messages[2:]:
        if m["role"] == "assistant" or not turns:
            turns.append([m])
        else:
            turns[-1].append(m)
    return turns


def compact(
    client, role: str, messages: list[dict], task: str | None, meter: Meter, user: str, prompt_tokens: int
) -> list[dict]:
    """A running summary (the model's, of the whole transcript) in the user message, plus the last turns."""
    turns = _turns(messages)
    if len(turns) <= KEEP_TURNS:
        return messages
    resp = client.chat([*messages, {"role": "user", "content": COMPACT_REQUEST}], task=task)
    meter.add_usage(resp.usage, resp.latency_s)
    summary = (resp.content or "").strip()
    kept = [m for t in turns[-KEEP_TURNS:] for m in t]
    head = [messages[0], {"role": "user", "content": f"{user}\n\n{SUMMARY_HEADING}\n{summary}"}]
    meter.compactions += 1
    log.info(
        "role %s: compacted the transcript at %d prompt tokens: %d turns -> summary (%d characters) + last %d",
        role,
        prompt_tokens,
        len(turns),
        len(summary),
        KEEP_TURNS,
    )
    return head + kept


def run(
    client,
    role: str,
    system: str,
    user: str,
    harness: Harness | None,
    max_rounds: int,
    final_answer_on_cap: bool = True,
    task: str | None = None,
    require_lookup: bool | None = None,
    small_offer: tuple[str, ...] | None = None,
) -> tuple[str, Episode, list[dict]]:
    """Returns the final text, the episode's accounting and the transcript (OpenAI wire format).
    `require_lookup` (default: the role is in LOOKUP_ROLES) holds back any answer until a tool call has run
    (the searcher's lookup; a builder's first write, when its caller asks for it). `small_offer`: the only tools
    the embedded model is offered, when its role needs fewer than the harness's (the compact builder)."""
    settings = getattr(client, "settings", None)
    threshold = getattr(settings, "compact_prompt_tokens", None)
    if harness is not None and getattr(settings, "tool_output_max_chars", None):
        harness.max_output_chars = int(settings.tool_output_max_chars)
    meter = Meter(role, str(client.model), harness)
    messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    small = small_model(client)  # the embedded model: each tool's compact call form (Tool.compact)
    tools = harness.schemas(small, small_offer if small else None) if harness and harness.tools else None
    must_look = tools is not None and (role in LOOKUP_ROLES if require_lookup is None else require_lookup)
    answering = final_answer_on_cap and tools is not None
    looked_up = False
    text = ""
    try:
        while True:
            offer = tools if meter.rounds + meter.refused_answers < max_rounds else None
            if offer is None and tools is not None:
                meter.capped = True
                if not final_answer_on_cap:
                    break
                messages.append({"role": "user", "content": CAP_NOTICE})
            params = {"tool_choice": "auto" if looked_up else "required"} if offer and must_look else {}
            sent = offer
            if offer is None and tools is not None and small:  # the embedded model keeps the tools in its prompt (KV
                sent, params = tools, {"tool_choice": "none"}  # prefix) and is decoded under the answer grammar
            resp = client.chat(messages, tools=sent, task=task, **params)
            meter.add_usage(resp.usage, resp.latency_s)
            calls = resp.tool_calls if offer else ()
            if not calls and offer and must_look and not looked_up:  # an answer before any lookup: refused
                meter.refused_answers += 1
                messages += [
                    {"role": "assistant", "content": resp.content or ""},
                    {"role": "user", "content": LOOKUP_NOTICE},
                ]
                continue
            if not calls:
                text = resp.content or ""
                messages.append({"role": "assistant", "content": text})
                break
            meter.rounds += 1
            messages.append(
                {
                    "role": "assistant",
                    "content": resp.content or "",
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                        }
                        for c in calls
                    ],
                }
            )
            for c in calls:
                result = harness.call(c.name, harness.compact_arguments(c.name, c.arguments) if small else c.arguments)
                looked_up = looked_up or result.found
                messages.append({"role": "tool", "tool_call_id": c.id, "content": result.output})
            if threshold and resp.usage.prompt_tokens >= threshold:
                messages = compact(client, role, messages, task, meter, user, resp.usage.prompt_tokens)
    except ContextOverflow as exc:  # one long tool output ends this episode, not the stage: it is counted
        meter.context_overflow = True
        text = ""
        log.warning("role %s, model %s: episode ended, %s", role, client.model, exc)
    if answering:
        meter.looked_up = looked_up
        meter.no_answer = not text.strip()
        if not looked_up and meter.rounds:
            log.warning(
                "role %s, model %s: answered at the round cap (%d) with no tool call that ran (%d malformed)",
                role,
                client.model,
                max_rounds,
                harness.malformed - meter.base[4],
            )
        if meter.no_answer:
            log.warning("role %s, model %s: the final reply is empty (%d rounds)", role, client.model, meter.rounds)
    if tools is not None and meter.rounds == 0:
        meter.no_tool_call = True
        log.warning(
            "role %s, model %s: answered without calling any of the %d offered tools (0 rounds); its "
            "answer rests on no store access",
            role,
            client.model,
            len(tools),
        )
    return text, meter.close(), messages
