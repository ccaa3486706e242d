"""What an episode cost: tool rounds, tool calls and errors, tokens by kind, characters read, and what the run
settings did to it: tool outputs cut at the safety cap (`truncations`), transcripts compacted (`compactions`),
and whether a model offered tools answered without any (`no_tool_call`).

Programmatic agents call no model, so their tokens are 0; `chars_read` (characters of tool output returned to
the agent) is the cost proxy comparable across both kinds of agent.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from tailmem.fsmem.tools.base import Harness


@dataclass(frozen=True)
class Episode:
    role: str
    agent: str  # model name, or e.g. "programmatic-searcher"
    rounds: int
    tool_calls: int
    tool_errors: int
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    chars_read: int
    capped: bool
    latency_s: float
    calls: tuple = ()  # per model call (prompt, cached, completion) tokens, for paper 2's intrinsic-efficiency bounds
    truncations: int = 0  # tool outputs cut at the harness's safety cap
    compactions: int = 0  # transcript compactions (running summary + last three turns)
    no_tool_call: bool = False  # offered tools, called none

    def to_json(self) -> dict:
        return asdict(self)


class Meter:
    """Counts one episode on one harness: rounds and tokens by hand, tool calls from the harness counters."""

    def __init__(self, role: str, agent: str, harness: Harness | None):
        self.role, self.agent, self.harness = role, agent, harness
        self.base = (harness.calls, harness.errors, harness.chars_read, harness.truncations) if harness else (0, 0, 0, 0)
        self.rounds = self.prompt = self.cached = self.completion = 0
        self.compactions = 0
        self.capped = self.no_tool_call = False
        self.usages: list[tuple[int, int, int]] = []
        self.model_latency = 0.0
        self.t0 = time.perf_counter()

    def add_usage(self, usage, latency_s: float = 0.0) -> None:
        self.prompt += usage.prompt_tokens
        self.cached += usage.cached_tokens
        self.completion += usage.completion_tokens
        self.usages.append((usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens))
        self.model_latency += latency_s

    def close(self) -> Episode:
        h = self.harness
        calls, errors, chars, cut = (h.calls, h.errors, h.chars_read, h.truncations) if h else (0, 0, 0, 0)
        return Episode(self.role, self.agent, self.rounds, calls - self.base[0], errors - self.base[1],
                       self.prompt, self.cached, self.completion, chars - self.base[2], self.capped,
                       round(time.perf_counter() - self.t0, 4), tuple(self.usages), cut - self.base[3],
                       self.compactions, self.no_tool_call)


def dollars(ep: Episode, prices: dict | None) -> float:
    """US dollars from `llm.prices` (dollars per million tokens: input, cached_input, output); 0 if none apply."""
    if not prices or ep.agent.startswith("programmatic"):
        return 0.0
    p = prices.get(ep.agent) or prices.get("default")
    if not p:
        return 0.0
    uncached = ep.prompt_tokens - ep.cached_tokens
    return (uncached * float(p["input"]) + ep.cached_tokens * float(p["cached_input"])
            + ep.completion_tokens * float(p["output"])) / 1e6
