"""Matched replay: one fixed trajectory, replayed under a memory controller, with a prediction at every step.

Every controller sees the same states and actions in the same order, so differences in tokens and errors are
the controller's alone (paper 1 Table 1, "matched replay"). At step t at state s with action a:
(a) the controller builds the memory block from the store, (c) the predictor names the next state, the full
prompt's tokens are counted, and evidence coverage is checked; (d) the true next state is written to memory.
The visited state's item and the items placed into the block are the step's accesses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from tailmem.control.predict import find_evidence, full_prompt
from tailmem.control.world_memory import WorldMemory
from tailmem.graphworld.world import World
from tailmem.memory.controllers import Controller
from tailmem.memory.marks import line_marks
from tailmem.memory.query import Query
from tailmem.memory.tokens import TokenCounter


@dataclass(frozen=True)
class ReplayResult:
    steps: pd.DataFrame  # one row per API-calling step
    counts: np.ndarray  # (n,) accesses per item (state) by the controller's prompts


def replay(
    world: World,
    states: np.ndarray,
    edges: np.ndarray,
    controller: Controller,
    predictor,
    counter: TokenCounter,
    progress: bool = False,
) -> ReplayResult:
    mem = WorldMemory(world)
    kept = block_steps(len(states))
    counts = np.zeros(world.n, dtype=np.int64)
    rows = []
    for t in tqdm(range(len(states)), disable=not progress, desc=controller.name, unit="step", leave=False):
        s, e = int(states[t]), int(edges[t])
        a = e - int(world.indptr[s])
        nxt = int(world.targets[e])
        action = world.action_names[e]
        text = world.state_texts[s]
        mem.visit(s)
        prompt = controller.build(mem.store, Query(step=t, current=s, related=mem.related(s), text=f"{text} {action}"), counter)
        pred = predictor.predict(prompt.text, s, text, action)
        covered = find_evidence(prompt.text, s, action) == nxt
        accessed = tuple(dict.fromkeys((s, *prompt.accessed)))  # the visit, then what the prompt holds
        counts[list(accessed)] += 1
        mem.store.touch(accessed, t)
        rows.append(
            (t, s, nxt, -1 if pred.state is None else pred.state, pred.state == nxt, covered,
             counter.exact(full_prompt(prompt.text, s, text, action)), prompt.tokens, len(prompt.core), len(prompt.tail),
             *((prompt.text, line_marks(prompt, mem.store.items)) if t in kept else (None, None)))
        )
        mem.learn(t, s, a, nxt)
    steps = pd.DataFrame(
        rows,
        columns=["step", "state", "next_state", "predicted", "correct", "covered", "prompt_tokens", "memory_tokens", "n_core", "n_tail",
                 "memory", "marks"],
    )
    return ReplayResult(steps=steps, counts=counts)


# Steps whose memory block is kept (`memory`, and `marks` from tailmem.memory.marks): enough for the site's step
# viewer to compare controllers on the same steps of a matched replay, few enough that steps.parquet stays small.
BLOCK_SAMPLES = 40


def block_steps(n_steps: int) -> set[int]:
    """The `BLOCK_SAMPLES` evenly spaced steps (first and last included) whose memory block is saved; the same
    steps for every arm of a trajectory, so their blocks can be set side by side."""
    if n_steps <= 0:
        return set()
    return {int(t) for t in np.linspace(0, n_steps - 1, min(BLOCK_SAMPLES, n_steps)).round()}


def tail_states(steps: pd.DataFrame, counts: np.ndarray, fraction: float = 0.5) -> np.ndarray:
    """The least-accessed `fraction` of the states the agent predicted at (ties broken by state id)."""
    visited = np.unique(steps.state.to_numpy())
    order = visited[np.lexsort((visited, counts[visited]))]
    return order[: int(np.ceil(fraction * len(order)))]


def summarize(result: ReplayResult, tail_fraction: float = 0.5) -> dict:
    """Tokens per step, overall and tail error, and their evidence-coverage twins."""
    steps = result.steps
    tail = np.isin(steps.state.to_numpy(), tail_states(steps, result.counts, tail_fraction))
    return {
        "steps": int(len(steps)),
        "tokens_per_step": float(steps.prompt_tokens.mean()),
        "memory_tokens_per_step": float(steps.memory_tokens.mean()),
        "overall_error": float(1.0 - steps.correct.mean()),
        "tail_error": float(1.0 - steps.correct[tail].mean()),
        "overall_coverage": float(steps.covered.mean()),
        "tail_coverage": float(steps.covered[tail].mean()),
        "tail_steps": int(tail.sum()),
    }
