"""Matched replay: one fixed trajectory, replayed under a memory controller, with a prediction at every step
(or at the configured subset of steps, `predict_steps`).

Every controller sees the same states and actions in the same order, so differences in tokens and errors are
the controller's alone (paper 1 Table 1, "matched replay"). At step t at state s with action a:
(a) the controller builds the memory block from the store, (c) the predictor names the next state, the full
prompt's tokens are counted, and evidence coverage is checked; (d) the true next state is written to memory.
The visited state's item and the items placed into the block are the step's accesses.

A model predictor costs seconds per call, so `control.predict_steps` may ask for predictions at only N steps
(`predict_spread`: evenly spread, first and last included, or the last N). The memory is still built, counted and
written at every step, so the controller's state, its accesses and its tokens per step are those of the full
replay; only the predicted steps are rows of `steps` (the API-calling steps), so error and coverage, overall and
tail, are scored over them alone. The same steps for every arm of a trajectory.

A design check's plan (`plan`, tailmem.control.design) is the other way to spend a model's calls: every replayed
step is a row, the predictor is called at the plan's steps only, and each called row carries its weight, so
error is estimated without bias (`error_rate`) and a claim pair's difference is exact where its arms shared a
prompt (`prompt_sha`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from tailmem.control.predict import Prediction, find_evidence, full_prompt, mentioned_codes
from tailmem.control.world_memory import WorldMemory
from tailmem.graphworld.world import World
from tailmem.llm.backends.base import ContextOverflow
from tailmem.llm.parallel import run_units
from tailmem.memory.budget import MemoryBudget
from tailmem.memory.controllers import Controller
from tailmem.memory.marks import line_marks
from tailmem.memory.query import Query
from tailmem.memory.tokens import TokenCounter


@dataclass(frozen=True)
class ReplayResult:
    steps: pd.DataFrame  # one row per API-calling (predicted) step
    counts: np.ndarray  # (n,) accesses per item (state) by the controller's prompts
    tokens: pd.DataFrame | None = None  # every replayed step's prompt and memory tokens; None = the rows of `steps`

    @property
    def replayed(self) -> pd.DataFrame:
        """Tokens of every replayed step (predicted or not): what tokens per step are averaged over."""
        return self.steps if self.tokens is None else self.tokens


SPREADS = ("even", "last")


def load_run(cfg):
    """(world, trace) of the trajectory a controller or design-check job replays, from the stage's settings `cfg`:
    `control.world` and `input` when Snakemake sets them, else the folders the run's composed config derives; a
    trace of another world is refused."""
    from pathlib import Path

    from tailmem import paths
    from tailmem.errors import ArtifactError
    from tailmem.rollout.trace import Trace

    world_dir = Path(cfg.control.world) if cfg.control.world else paths.graphworld_dir(cfg)
    trace_dir = Path(cfg.input) if cfg.input else paths.rollout_dir(cfg.composed)
    world = World.load(world_dir / paths.WORLD_FILE)
    trace = Trace.load(trace_dir / paths.TRACE_FILE)
    if trace.n != world.n:
        raise ArtifactError(f"{trace_dir / paths.TRACE_FILE}: {trace.n} states but the world has {world.n}")
    return world, trace


def replayed(trace, steps: int | None):
    """The states and actions the replay covers: the trajectory's first `steps` steps (None: all)."""
    stop = len(trace.states) if steps is None else min(int(steps), len(trace.states))
    return trace.states[:stop], trace.actions[:stop]


def retrieved_per_step(trace, steps: int) -> list[np.ndarray]:
    """The items the rollout's retrieval design placed in context at each of the first `steps` steps (its
    accesses after the visit): the candidates that design adds beside the current state's known neighbours."""
    bounds = np.searchsorted(trace.access_step, np.arange(steps + 1))
    return [trace.access_item[bounds[t] + 1 : bounds[t + 1]] for t in range(steps)]


def predict_steps(n_steps: int, count: int | None, spread: str = "even") -> list[int]:
    """The steps the predictor runs at: every step (count None or >= n_steps), else `count` steps evenly spread
    over the replay (first and last included) or the last `count`."""
    if spread not in SPREADS:
        raise ValueError(f"predict spread {spread!r}; expected one of {SPREADS}")
    if count is None or count >= n_steps:
        return list(range(n_steps))
    if count <= 0:
        return []
    if spread == "last":
        return list(range(n_steps - count, n_steps))
    return sorted({int(t) for t in np.linspace(0, n_steps - 1, count).round()})


def replay(
    world: World,
    states: np.ndarray,
    edges: np.ndarray,
    controller: Controller,
    predictor,
    counter: TokenCounter,
    progress: bool = False,
    predict_at: list[int] | None = None,
    budget: MemoryBudget | None = None,
    retrieved: Sequence[Sequence[int]] | None = None,
    plan: Mapping[int, float] | None = None,
) -> ReplayResult:
    """`predict_at`: the steps the predictor runs at (`predict_steps`); None = every step.

    `budget`: the arm's resolved budget (tailmem.memory.budget.resolve); each step's query carries the memory
    tokens it leaves that step (`MemoryBudget.for_step`: what the step's instruction and question leave of a
    whole-prompt budget, paper 1's). None: the controller's own budget caps the memory block alone.
    `retrieved[t]`: the items the rollout's retrieval design placed in context at step t (the trace's accesses
    after the visit); they join the current state's known neighbours as candidates, so the design
    that defines the access counts, and so the tail, also shapes the candidate pool. `plan`: step -> weight of the
    steps the predictor is called at (a design check's plan); every step is then a row, `called` says which were
    predicted and `weight` is the inverse of a sampled step's inclusion probability (0 for a step not called).
    """
    mem = WorldMemory(world)
    if plan is not None:
        predict_at = None
    scored = None if predict_at is None else set(int(t) for t in predict_at)
    # the kept blocks are among the predicted steps, so the site shows each with its prediction
    kept = block_steps(len(states)) if scored is None else {sorted(scored)[i] for i in block_steps(len(scored))}
    if plan is not None:
        kept = {t for t in kept if t in plan}
    counts = np.zeros(world.n, dtype=np.int64)
    rows, tokens = [], []
    calls = []  # (row index, true next state, predict() arguments) of every step the predictor is called at
    for t in tqdm(range(len(states)), disable=not progress, desc=controller.name, unit="step", leave=False):
        s, e = int(states[t]), int(edges[t])
        a = e - int(world.indptr[s])
        nxt = int(world.targets[e])
        action = world.action_names[e]
        text = world.state_texts[s]
        mem.visit(s)
        related = mem.related(s)
        if retrieved is not None:
            related = tuple(
                sorted(set(related) | {int(i) for i in retrieved[t] if int(i) != s and int(i) in mem.store})
            )
        cap = None if budget is None else budget.for_step(counter(full_prompt("", s, text, action)))
        query = Query(step=t, current=s, related=related, text=f"{text} {action}", budget=cap)
        prompt = controller.build(mem.store, query, counter)
        prompt_tokens = counter.exact(full_prompt(prompt.text, s, text, action))
        row = scored is None or t in scored
        call = row if plan is None else t in plan  # a planned replay makes every step a row
        if call:
            calls.append((len(rows), nxt, (prompt.text, s, text, action)))
        if row:
            covered = find_evidence(prompt.text, s, action) == nxt
        accessed = tuple(dict.fromkeys((s, *prompt.accessed)))  # the visit, then what the prompt holds
        counts[list(accessed)] += 1
        mem.store.touch(accessed, t)
        if row:
            rows.append(
                (
                    t,
                    s,
                    nxt,
                    -2,  # not called; a called step's prediction is filled in below
                    np.nan,
                    covered,
                    nxt in mentioned_codes(prompt.text),
                    prompt_digest(prompt.text),
                    call,
                    (1.0 if plan is None else float(plan[t])) if call else 0.0,
                    prompt_tokens,
                    prompt.tokens,
                    len(prompt.core),
                    len(prompt.tail),
                    *((prompt.text, line_marks(prompt, mem.store.items)) if t in kept else (None, None)),
                )
            )
        if scored is not None:
            tokens.append((t, prompt_tokens, prompt.tokens))
        mem.learn(t, s, a, nxt)
    for (i, nxt, _), pred in zip(calls, predict_all(predictor, [args for _, _, args in calls])):
        rows[i] = (*rows[i][:3], -1 if pred.state is None else pred.state, pred.state == nxt, *rows[i][5:])
    steps = pd.DataFrame(
        rows,
        columns=[
            "step",
            "state",
            "next_state",
            "predicted",
            "correct",
            "covered",
            "mentions_next",
            "prompt_sha",
            "called",
            "weight",
            "prompt_tokens",
            "memory_tokens",
            "n_core",
            "n_tail",
            "memory",
            "marks",
        ],
    )
    if plan is None or steps.called.all():
        steps["correct"] = steps.correct.astype(bool)
    replayed = None if scored is None else pd.DataFrame(tokens, columns=["step", "prompt_tokens", "memory_tokens"])
    return ReplayResult(steps=steps, counts=counts, tokens=replayed)


def predict_all(predictor, calls: list[tuple]) -> list[Prediction]:
    """predictor.predict(*args) for every call, in order. Under matched replay a prompt never depends on an earlier
    prediction (memory learns the true next state), so the calls are independent and a model predictor sends them
    side by side (`predictor.workers`, tailmem.llm.parallel); the requests and so the cache's hashes are those of
    a step-by-step replay. A prompt over the model's context window is scored as no prediction (-1)."""

    def one(args: tuple) -> Prediction:
        try:
            return predictor.predict(*args)
        except ContextOverflow:  # this step is scored as no prediction; the replay goes on
            return Prediction(None, False)

    workers = predictor.workers(len(calls)) if hasattr(predictor, "workers") else 1
    return run_units(one, calls, workers, name="predict")


def prompt_digest(memory_block: str) -> str:
    """A short digest of a memory block: two arms whose blocks share it sent the predictor the same prompt at that
    step (the rest of the prompt is the step's own), so a greedy model answers both alike."""
    return hashlib.sha1(memory_block.encode()).hexdigest()[:16]


# Steps whose memory block is kept (`memory`, and `marks` from tailmem.memory.marks): enough for the site's step
# viewer to compare controllers on the same steps of a matched replay, few enough that steps.parquet stays small.
BLOCK_SAMPLES = 40


def block_steps(n_steps: int) -> set[int]:
    """The `BLOCK_SAMPLES` evenly spaced steps (first and last included) whose memory block is saved; the same
    steps for every arm of a trajectory, so their blocks can be set side by side."""
    if n_steps <= 0:
        return set()
    return {int(t) for t in np.linspace(0, n_steps - 1, min(BLOCK_SAMPLES, n_steps)).round()}


def window_counts(access_step: np.ndarray, access_item: np.ndarray, n: int, steps: int | None) -> np.ndarray:
    """Accesses per item over a trace's first `steps` steps (None: all of them): the counts that rank the tail of
    a study that replays only those steps, so its tail is the part of memory rarely used in what it replays."""
    access_step, access_item = np.asarray(access_step), np.asarray(access_item)
    keep = slice(None) if steps is None else access_step < int(steps)
    return np.bincount(access_item[keep], minlength=int(n))


def tail_states(steps: pd.DataFrame, counts: np.ndarray, fraction: float = 0.5) -> np.ndarray:
    """The least-accessed `fraction` of the states the agent predicted at (ties broken by state id)."""
    visited = np.unique(steps.state.to_numpy())
    order = visited[np.lexsort((visited, counts[visited]))]
    return order[: int(np.ceil(fraction * len(order)))]


def error_rate(steps: pd.DataFrame, mask=None) -> float:
    """Error over the rows (or the `mask`ed ones). Rows of a planned replay (`control.plan`) carry `called` and
    `weight` (the inverse of a called step's inclusion probability): the weighted error of the called rows, sum of
    weight x error over sum of weight (the ratio estimator: it stays in [0, 1], and is unbiased as the strata
    grow), NaN when none was called."""
    rows = steps if mask is None else steps[np.asarray(mask)]
    if "weight" in rows and not rows.called.all():
        rows = rows[rows.called.astype(bool)]
        if not len(rows) or rows.weight.sum() <= 0:
            return float("nan")
        return float((rows.weight * (1.0 - rows.correct.astype(float))).sum() / rows.weight.sum())
    return float(1.0 - rows.correct.astype(float).mean()) if len(rows) else float("nan")


def summarize(result: ReplayResult, tail_fraction: float = 0.5) -> dict:
    """Tokens per step (over every replayed step), overall and tail error and their evidence-coverage twins (over
    the predicted steps; the tail: the least-accessed `tail_fraction` of the states predicted at)."""
    steps, replayed = result.steps, result.replayed
    tail = np.isin(steps.state.to_numpy(), tail_states(steps, result.counts, tail_fraction))
    return {
        "steps": int(len(replayed)),
        "predicted_steps": int(steps.called.sum()) if "called" in steps else int(len(steps)),
        "tokens_per_step": float(replayed.prompt_tokens.mean()),
        "memory_tokens_per_step": float(replayed.memory_tokens.mean()),
        "overall_error": error_rate(steps),
        "tail_error": error_rate(steps, tail),
        "overall_coverage": float(steps.covered.mean()),
        "tail_coverage": float(steps.covered[tail].mean()),
        "tail_steps": int(tail.sum()),
    }
