"""The model-driven agent loop: ask the model, run the tool calls it makes, feed results back, until it
answers or the round cap is hit. A round is one model call that asked for tools.

Paper 2's run settings (its section C.1) live here and in the role's settings: the assistant turn that asked for
tools goes back with content "" (never null, which llama.cpp's server rejects); tool output is capped only by
the role's `tool_output_max_chars` safety cap, each hit counted; a transcript whose prompt passes
`compact_prompt_tokens` is compacted into a running summary plus the three most recent turns, each compaction
counted and logged; an episode offered tools that never calls one is warned about and counted (`no_tool_call`).
"""

from __future__ import annotations

import json
import logging

from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.tools.base import Harness

log = logging.getLogger(__name__)
CAP_NOTICE = "Tool budget exhausted. Give your final answer now from what you have read."
COMPACT_REQUEST = (
    "Your context is nearly full. Write a summary of your work so far that lets you continue without the earlier "
    "messages: what you were asked, what you found (with file paths, line numbers and exact facts), what you "
    "changed, and what remains to do. Reply with the summary only.")
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


def compact(client, role: str, messages: list[dict], task: str | None, meter: Meter, user: str,
            prompt_tokens: int) -> list[dict]:
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
    log.info("role %s: compacted the transcript at %d prompt tokens: %d turns -> summary (%d characters) + last %d",
             role, prompt_tokens, len(turns), len(summary), KEEP_TURNS)
    return head + kept


def run(client, role: str, system: str, user: str, harness: Harness | None, max_rounds: int,
        final_answer_on_cap: bool = True, task: str | None = None) -> tuple[str, Episode, list[dict]]:
    """Returns the final text, the episode's accounting and the transcript (OpenAI wire format)."""
    settings = getattr(client, "settings", None)
    threshold = getattr(settings, "compact_prompt_tokens", None)
    if harness is not None and getattr(settings, "tool_output_max_chars", None):
        harness.max_output_chars = int(settings.tool_output_max_chars)
    meter = Meter(role, str(client.model), harness)
    messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    tools = harness.schemas() if harness and harness.tools else None
    text = ""
    while True:
        offer = tools if meter.rounds < max_rounds else None
        if offer is None and tools is not None:
            meter.capped = True
            if not final_answer_on_cap:
                break
            messages.append({"role": "user", "content": CAP_NOTICE})
        resp = client.chat(messages, tools=offer, task=task)
        meter.add_usage(resp.usage, resp.latency_s)
        calls = resp.tool_calls if offer else ()
        if not calls:
            text = resp.content or ""
            messages.append({"role": "assistant", "content": text})
            break
        meter.rounds += 1
        messages.append({
            "role": "assistant",
            "content": resp.content or "",
            "tool_calls": [{"id": c.id, "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in calls],
        })
        for c in calls:
            result = harness.call(c.name, c.arguments)
            messages.append({"role": "tool", "tool_call_id": c.id, "content": result.output})
        if threshold and resp.usage.prompt_tokens >= threshold:
            messages = compact(client, role, messages, task, meter, user, resp.usage.prompt_tokens)
    if tools is not None and meter.rounds == 0:
        meter.no_tool_call = True
        log.warning("role %s, model %s: answered without calling any of the %d offered tools (0 rounds); its "
                    "answer rests on no store access", role, client.model, len(tools))
    return text, meter.close(), messages
