"""The model-driven agent loop: ask the model, run the tool calls it makes, feed results back, until it
answers or the round cap is hit. A round is one model call that asked for tools."""

from __future__ import annotations

import json

from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.tools.base import Harness

CAP_NOTICE = "Tool budget exhausted. Give your final answer now from what you have read."


def run(client, role: str, system: str, user: str, harness: Harness | None, max_rounds: int,
        final_answer_on_cap: bool = True) -> tuple[str, Episode, list[dict]]:
    """Returns the final text, the episode's accounting and the transcript (OpenAI wire format)."""
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
        resp = client.chat(messages, tools=offer)
        meter.add_usage(resp.usage, resp.latency_s)
        calls = resp.tool_calls if offer else ()
        if not calls:
            text = resp.content or ""
            messages.append({"role": "assistant", "content": text})
            break
        meter.rounds += 1
        messages.append({
            "role": "assistant",
            "content": resp.content,
            "tool_calls": [{"id": c.id, "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in calls],
        })
        for c in calls:
            result = harness.call(c.name, c.arguments)
            messages.append({"role": "tool", "tool_call_id": c.id, "content": result.output})
    return text, meter.close(), messages
