"""What an episode cost: tool rounds, tool calls and errors, tokens by kind, characters read, and what the run
settings did to it: tool outputs cut at the safety cap (`truncations`), transcripts compacted (`compactions`),
and whether a model offered tools answered without any (`no_tool_call`). And what the loop protocol saw
(`loop.run`): malformed calls (an unknown tool or arguments the schema refuses), whether a role that must look up
before answering did (`looked_up`; answers offered before it are refused and counted), and a reply that never
answered (`no_answer`) or an episode ended by the round cap (`capped`).

Programmatic agents call no model, so their tokens are 0; `chars_read` (characters of tool output returned to
the agent) is the cost proxy comparable across both kinds of agent.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass

from tailmem.fsmem.tools.base import Harness
from tailmem.roles import PROGRAMMATIC


@dataclass(frozen=True)
class Episode:
    role: str
    agent: str  # model name, or e.g. `programmatic-searcher` (roles.programmatic_agent)
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
    malformed_calls: int = 0  # tool calls naming no offered tool or with arguments the schema refuses
    looked_up: bool | None = (
        None  # an answering role offered tools: a call returned store content before its answer (None: n/a)
    )
    no_lookup: bool = False  # looked_up is False: its answer rests on nothing read (the cap forced it)
    refused_answers: int = 0  # answers offered before any lookup, refused by the loop (they count to the cap)
    no_answer: bool = False  # an answering role whose final reply was empty
    context_overflow: bool = False  # a prompt outgrew the model's context window: the episode ended there

    def to_json(self) -> dict:
        return asdict(self)


class Meter:
    """Counts one episode on one harness: rounds and tokens by hand, tool calls from the harness counters."""

    def __init__(self, role: str, agent: str, harness: Harness | None):
        self.role, self.agent, self.harness = role, agent, harness
        self.base = _counters(harness)
        self.rounds = self.prompt = self.cached = self.completion = 0
        self.compactions = self.refused_answers = 0
        self.capped = self.no_tool_call = self.no_answer = self.context_overflow = False
        self.looked_up: bool | None = None
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
        calls, errors, chars, cut, bad = (now - then for now, then in zip(_counters(self.harness), self.base))
        return Episode(
            self.role,
            self.agent,
            self.rounds,
            calls,
            errors,
            self.prompt,
            self.cached,
            self.completion,
            chars,
            self.capped,
            round(time.perf_counter() - self.t0, 4),
            tuple(self.usages),
            cut,
            self.compactions,
            self.no_tool_call,
            bad,
            self.looked_up,
            self.looked_up is False,
            self.refused_answers,
            self.no_answer,
            self.context_overflow,
        )


def _counters(h: Harness | None) -> tuple[int, int, int, int, int]:
    return (h.calls, h.errors, h.chars_read, h.truncations, h.malformed) if h else (0, 0, 0, 0, 0)


# Paper 2's run settings as table columns: what they did to the episodes behind a table row.
RUN_SETTING_COLUMNS = (
    ("no tool call", "no_tool_call"),
    ("no lookup", "no_lookup"),
    ("malformed calls", "malformed_calls"),
    ("capped", "capped"),
    ("no answer", "no_answer"),
    ("compactions", "compactions"),
    ("truncations", "truncations"),
    ("context overflows", "context_overflow"),
)
RUN_SETTINGS_NOTE = (
    "Run settings (paper 2 C.1): `no tool call` = answers given without any tool call by an agent "
    "offered tools; `no lookup` = answers a searcher gave with no tool call that ran (the round cap "
    "forced them: the loop refuses an answer before a lookup); `malformed calls` = tool calls naming "
    "no offered tool or with arguments the tool's schema refuses; `capped` = episodes ended by the "
    "round cap (fsmem.rounds.*: a builder that never finished, a searcher told to answer now); `no "
    "answer` = final replies left empty; `compactions` = transcripts compacted into a running summary "
    "plus the last three turns past llm.compact_prompt_tokens; `truncations` = tool outputs cut at "
    "the safety cap (llm.tool_output_max_chars); `context overflows` = episodes ended because a prompt "
    "outgrew the model's context window (the answer is left empty and scored as such); totals over the "
    "row's episodes (`build ...`: the build's)."
)


def _count(value) -> int:
    """A counter or flag from a record; absent or NaN (a row written before the field existed) counts 0."""
    return 0 if value is None or value != value else int(value)


def run_setting_counts(search_rows: Iterable[Mapping], build_episodes: Iterable[Mapping] = ()) -> dict[str, int]:
    """Answers given without a tool call by an agent offered tools, transcript compactions, and tool outputs cut at
    the safety cap, summed over the search episodes (a row's `search_<field>` values) and the build episodes."""
    search_rows, build_episodes = list(search_rows), list(build_episodes)
    out = {}
    for label, field in RUN_SETTING_COLUMNS:
        searched = sum(_count(r.get(f"search_{field}")) for r in search_rows)
        out[label] = searched + sum(_count(e.get(field)) for e in build_episodes)
    return out


SEARCH_COSTS = ("tool calls/q", "rounds/q", "chars read/q", "cents/q", "tokens/q")


def search_costs(rows) -> dict[str, float]:
    """What a search cost per question answered, over answer rows (a DataFrame of their `search_<field>` columns):
    tool calls, rounds, characters read, cents and tokens. NaN each where no question was answered: a mean over
    nothing, which a 0 would report as a free search."""
    if not len(rows):
        return dict.fromkeys(SEARCH_COSTS, math.nan)
    return {
        "tool calls/q": rows["search_tool_calls"].mean(),
        "rounds/q": rows["search_rounds"].mean(),
        "chars read/q": rows["search_chars_read"].mean(),
        "cents/q": rows["search_dollars"].mean() * 100,
        "tokens/q": (rows["search_prompt_tokens"] + rows["search_completion_tokens"]).mean(),
    }


def dollars(ep: Episode, prices: dict | None) -> float:
    """US dollars from `llm.prices` (dollars per million tokens: input, cached_input, output); 0 if none apply."""
    if not prices or ep.agent.startswith(PROGRAMMATIC):
        return 0.0
    p = prices.get(ep.agent) or prices.get("default")
    if not p:
        return 0.0
    uncached = ep.prompt_tokens - ep.cached_tokens
    return (
        uncached * float(p["input"])
        + ep.cached_tokens * float(p["cached_input"])
        + ep.completion_tokens * float(p["output"])
    ) / 1e6
