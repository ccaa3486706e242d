"""Stages `design_check` and `design_check_report`: the controller study's model-free twin, before any model call.

`design_check` replays one trajectory under every arm a claim of claims_ctmc compares, with the programmatic
predictor, and writes `pairs.csv` (per claim pair: the steps it scores, how many have identical prompts, differ in
format only, in whether the true next state is named, in evidence coverage; the twin's own differences) and
`plan.json` (the steps a model predictor must be called at, with weights; tailmem.control.design).
`design_check_report` gathers every run into the `design_check` table: per claim, the runs planned against
`stats.min_units`, the smallest p their test can reach, the share of informative steps, and whether the plan can
decide it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs, paths
from tailmem.artifacts import atomic_path
from tailmem.control import design
from tailmem.control.predict import ProgrammaticPredictor
from tailmem.control.replay import load_run, replay, replayed, retrieved_per_step, tail_states, window_counts
from tailmem.graph_runs import Run, design_runs
from tailmem.llm.client import answers_constrained
from tailmem.memory.arm import Arm
from tailmem.memory.arms import arm_settings
from tailmem.memory.controllers import make_controller
from tailmem.memory.tokens import TokenCounter
from tailmem.paths import TABLES
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.control import DesignPlan
from tailmem.report.table_io import write_table
from tailmem.roles import PREDICTOR
from tailmem.settings.stage import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.settings import settings as stats_settings

log = logging.getLogger(__name__)


def _controller(arm: str, matched: int | None, seed: int):
    a = Arm.parse(arm)
    extra = {k: v for k, v in (("tau", a.tau), ("order", a.order)) if v is not None}
    settings = arm_settings(a.controller, encoding=a.encoding, **extra)
    if a.matched:
        settings["budget"] = matched
    return make_controller(settings, seed=seed)


@typed_stage("design_check")
def run(cfg: StageSettings) -> None:
    world, trace = load_run(cfg)
    counter = TokenCounter(encoding=cfg.llm.encoding)
    states, actions = replayed(trace, cfg.control.replay_steps)
    retrieved = retrieved_per_step(trace, len(states))
    whole_prompt = cfg.control.budget_scope == "prompt"
    steps: dict[str, pd.DataFrame] = {}
    matched = None
    for arm in design.claim_arms():  # Graph Memory first: the matched arms spend its measured tokens
        controller = _controller(arm, matched, int(cfg.seed))
        result = replay(
            world,
            states,
            actions,
            controller,
            ProgrammaticPredictor(),
            counter,
            prompt_budget=controller.budget if whole_prompt and controller.budget is not None else None,
            retrieved=retrieved,
        )
        steps[arm] = result.steps
        if matched is None:
            col = "prompt_tokens" if whole_prompt else "memory_tokens"
            matched = int(round(result.steps[col].mean()))
    first = steps[design.claim_arms()[0]]
    counts = window_counts(trace.access_step, trace.access_item, trace.n, len(states))
    in_tail = first.state.isin(tail_states(first, counts, cfg.control.tail_fraction)).to_numpy()
    blind_exact = answers_constrained(cfg, PREDICTOR)
    pairs = pd.DataFrame([design.pair_counts(steps, in_tail, p, blind_exact) for p in design.claim_pairs()])
    planned = design.plan(steps, in_tail, cfg.control.plan_calls, cfg.control.plan_sample, int(cfg.seed), blind_exact)
    out = paths.out_dir(cfg, paths.design_dir(cfg.composed))
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(out / paths.PAIRS_FILE) as tmp:
        pairs.assign(family=world.family, seed=int(cfg.seed)).to_csv(tmp, index=False)
    save_provenance(out, cfg, agent=ProgrammaticPredictor.name)
    DesignPlan(
        family=world.family,
        seed=int(cfg.seed),
        arms=design.claim_arms(),
        replayed_steps=len(states),
        informative_steps=planned.informative,
        sample=float(cfg.control.plan_sample),
        steps=planned.steps,
        weights=planned.weights,
        pairs=[vars(p) for p in planned.pairs],
        blind_exact=blind_exact,
    ).write(out / paths.PLAN_FILE)
    log.info(
        "%s seed %s: %d of %d steps informative for some claim pair; plan: %d shared steps, %d pair draws",
        world.family,
        cfg.seed,
        planned.informative,
        len(states),
        len(planned.steps),
        sum(len(p.steps) for p in planned.pairs),
    )


def design_file(run: Run, results: str, name: str) -> Path:
    return Path(paths.DESIGN.format(**run.keys(results))) / name


def draws_per_run(plans: list[DesignPlan], claim: str) -> float:
    """The steps per run a plan calls a claim pair's two arms at for its difference (within the claim's scope)."""
    pair = next((p for p in design.claim_pairs() if p.label == claim), None)
    if pair is None or not plans:
        return float("nan")
    n = 0
    for plan in plans:
        for p in plan.pairs:
            if (p["a"], p["b"]) == (pair.a, pair.b):
                n += sum(1 for k in p["strata"] if pair.scope == "all" or k.startswith("tail/"))
    return n / len(plans)


def fsmem_questions(cfg) -> int | None:
    """The LoCoMo questions the slice's answer stages ask (over every configured conversation): the cap, the
    categories and the sessions kept together decide it (3 sessions hold the evidence of only 8 stratified
    questions of conv-50, whatever `fsmem.max_questions`). None when the data is not there (the cap counts)."""
    from tailmem.errors import DataError
    from tailmem.fsmem.benchmarks import MAIN_BENCHMARK, conversation, conversation_ids
    from tailmem.fsmem.questions import select_questions

    fs = cfg.fsmem
    try:
        return sum(
            len(select_questions(conversation(fs, MAIN_BENCHMARK, c), fs, MAIN_BENCHMARK))
            for c in conversation_ids(fs, MAIN_BENCHMARK)
        )
    except (OSError, DataError) as e:
        log.warning("design check: LoCoMo questions not counted from the data (%s); the config's cap counts", e)
        return None


@typed_stage("design_check_report")
def report(cfg: StageSettings) -> None:
    results = cfg.results_dir
    st = stats_settings(cfg)
    runs = design_runs(cfg.composed)
    rows = pd.concat([pd.read_csv(design_file(r, results, paths.PAIRS_FILE)) for r in runs])
    table = design.summarize_pairs(rows, st.min_units, st.alpha)
    asked = fsmem_questions(cfg)
    table = pd.concat(
        [table, pd.DataFrame(design.study_rows(cfg, st.min_units, st.alpha, fsmem_questions=asked))],
        ignore_index=True,
    )
    plans = [DesignPlan.read(design_file(r, results, paths.PLAN_FILE)) for r in runs]
    calls = sum(len(p.arm_calls(a)) for p in plans for a in p.arms)  # at most: a shared prompt shares its call
    table["draws_per_run"] = [draws_per_run(plans, claim) for claim in table.claim]
    c = cfg.scale.control
    note = (
        f"The controller study's model-free twin (programmatic predictor) on the {c.policy} policy's trajectories, "
        f"{len(c.families)} families x {len(c.seeds)} seeds at {c.size} states, "
        f"{'-'.join(dict.fromkeys(str(n) for n in sorted(p.replayed_steps for p in plans)[:: max(len(plans) - 1, 1)]))}"
        f" steps replayed per run (control.replay_steps caps them), budget scope `{cfg.control.budget_scope}`. "
        "Per claim "
        "pair: the share of scored steps whose prompts are identical (difference exactly 0 for any greedy model), "
        "differ in format only, in whether the true next state is named, or in evidence coverage; informative "
        "steps per run (not identical); the runs planned (the independent units) against stats.min_units and the "
        "smallest one-sided p their exact test can reach; the twin's own error and coverage differences (a - b). "
        "A claim whose plan cannot decide it says so before any model call. The last rows check the other studies' "
        "paired claims from the config alone: the questions, games or runs each plans (an empty count: the whole "
        "benchmark). "
        + (
            f"A model predictor is called at most {calls:,} times under `control.plan` "
            f"({len(plans)} runs x {len(plans[0].arms) if plans else 0} claim arms: per pair of arms "
            f"{cfg.control.plan_calls} tail steps and {cfg.control.plan_calls} others where a claim scores "
            f"every step, drawn from the steps whose prompts differ (`draws_per_run`), and a shared "
            f"{cfg.control.plan_sample:g} of every step for each arm's own error; arms that share a prompt share "
            "its call)."
        )
    )
    write_table(
        Path(TABLES.format(results=results)),
        outputs.DESIGN_CHECK,
        table,
        "Design check: can each claim pair's arms differ?",
        note,
        table_footer(cfg),
    )
    log.info(
        "design check: %d claims, %d decidable; a planned model replay makes at most %d predictor calls",
        len(table),
        int(table.plan.str.startswith("decidable").sum()),
        calls,
    )
