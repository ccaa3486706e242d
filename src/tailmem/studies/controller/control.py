"""Stage `control`: replay one rollout's trajectory under one memory controller, predicting every next state
(or, with `control.predict_steps`, the next state at that many steps: a model predictor's cost is per call).
With `control.replay_steps` the replay covers the trajectory's first that many steps: the trace is as long as the
tail audit needs, while the controller study's cost grows with every replayed step.

Writes `steps.parquet` (one row per API-calling step: every step, or the predicted ones), `counts.npz` (accesses per
item) and `summary.json` (tokens per replayed step, overall and tail error and evidence coverage over the predicted
steps; which controller, predictor and trajectory).
"""

from __future__ import annotations

import logging
import time

from tailmem import paths
from tailmem.control.predict import ModelPredictor, ProgrammaticPredictor
from tailmem.control.replay import load_run, predict_steps, replay, replayed, retrieved_per_step, summarize
from tailmem.errors import ConfigError
from tailmem.memory.budget import MemoryBudget, controller_settings, is_matched, resolve
from tailmem.memory.controllers import make_controller
from tailmem.memory.tokens import TokenCounter
from tailmem.provenance import save_provenance
from tailmem.records.control import ControlCounts, ControlSteps, ControlSummary, DesignPlan
from tailmem.roles import PREDICTOR, plays_model
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage

log = logging.getLogger(__name__)


def arm_budget(cfg: StageSettings) -> MemoryBudget:
    """The arm's memory budget (tailmem.memory.budget.resolve): its nominal `memory.budget`, or for a `-matched`
    arm the tokens per step of the Graph Memory arm whose summary.json Snakemake names in `control.matched_from`;
    counting the whole prompt or the memory block as `control.budget_scope` says."""
    settings = cfg.memory.settings
    reference = None
    if is_matched(settings):
        if not cfg.control.matched_from:
            raise ConfigError("control.matched_from: memory.budget=matched needs the Graph Memory arm's summary.json")
        reference = ControlSummary.read(cfg.control.matched_from)
    return resolve(settings, whole_prompt=cfg.control.budget_scope == "prompt", reference=reference)


def read_plan(cfg: StageSettings) -> dict[int, float] | None:
    """The design check's plan for this run (`control.plan`): step -> weight (in the arm's own error) of every step
    the predictor is called at; None when the run predicts as `control.predict_steps` says."""
    if not cfg.control.plan:
        return None
    if not cfg.control.plan_file:
        raise ConfigError("control.plan_file: control.plan=true needs the run's design-check plan.json")
    plan = DesignPlan.read(cfg.control.plan_file)
    if cfg.control.arm not in plan.arms:  # no claim reads this arm's errors: no call (its table cells stay empty)
        return {}
    return plan.arm_calls(cfg.control.arm)


def make_predictor(cfg: StageSettings):
    from tailmem.llm import get_client

    client = get_client(cfg, PREDICTOR, stage="control")
    return ModelPredictor(client) if plays_model(client) else ProgrammaticPredictor()


@typed_stage("control")
def run(cfg: StageSettings) -> None:
    budget = arm_budget(cfg)
    controller = make_controller(controller_settings(cfg.memory.settings, budget), seed=int(cfg.seed))
    world, trace = load_run(cfg)
    predictor = make_predictor(cfg)
    counter = TokenCounter(encoding=cfg.llm.encoding)
    states, actions = replayed(trace, cfg.control.replay_steps)
    count, spread = cfg.control.predict_steps, cfg.control.predict_spread
    at = predict_steps(len(states), count, spread)
    at = None if len(at) == len(states) else at  # every step: the plain replay
    started = time.perf_counter()
    result = replay(
        world,
        states,
        actions,
        controller,
        predictor,
        counter,
        progress=None,
        predict_at=at,
        budget=budget,
        retrieved=retrieved_per_step(trace, len(states)),
        plan=read_plan(cfg),
    )
    seconds = time.perf_counter() - started
    summary = ControlSummary(
        arm=cfg.control.arm or controller.name,
        controller=controller.name,
        label=cfg.memory.label,
        encoding=controller.encoding,
        budget=budget.tokens,
        budget_scope=budget.scope,
        tau=getattr(controller, "tau", None),
        order=getattr(controller, "order", None),
        predictor=predictor.name,
        predictor_label=paths.role_label(cfg.composed, PREDICTOR),  # the predictor's folder segment: its model
        predict_steps=None if count is None else int(count),
        predict_spread=spread,
        replay_steps=None if cfg.control.replay_steps is None else int(cfg.control.replay_steps),
        trace_steps=int(len(trace.states)),
        policy=cfg.policy.name,
        retrieval=cfg.retrieval.name,
        family=world.family,
        n=world.n,
        seed=int(cfg.seed),
        tokenizer=cfg.llm.encoding,
        **summarize(result, cfg.control.tail_fraction),
        **(
            {"predictor_unknown": predictor.unknown, "predictor_malformed": predictor.malformed}
            if isinstance(predictor, ModelPredictor)
            else {}
        ),
    )
    out = paths.out_dir(cfg, paths.control_dir(cfg.composed))
    out.mkdir(parents=True, exist_ok=True)
    ControlSteps(result.steps).write(out / paths.STEPS_FILE)
    ControlCounts({"counts": result.counts}).write(out / paths.COUNTS_FILE)
    save_provenance(out, cfg, agent=predictor.name, controller=controller.name)
    summary.write(out / paths.SUMMARY_FILE)  # last: its presence means the arm is complete
    log.info(
        "%s: %.1f tokens/step, error %.3f (tail %.3f), coverage %.3f (tail %.3f) over %d of %d steps",
        summary.arm,
        summary.tokens_per_step,
        summary.overall_error,
        summary.tail_error,
        summary.overall_coverage,
        summary.tail_coverage,
        summary.predicted_steps,
        summary.steps,
    )
    if isinstance(predictor, ModelPredictor):
        log.info(
            "%s: %d predictions by %s in %.1f s (%.2f s per predicted step; cache hits %d, misses %d); "
            "%d UNKNOWN, %d without a state code",
            summary.arm,
            predictor.calls,
            predictor.name,
            seconds,
            seconds / max(predictor.calls, 1),
            predictor.client.hits,
            predictor.client.misses,
            predictor.unknown,
            predictor.malformed,
        )
