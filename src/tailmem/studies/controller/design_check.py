"""Stages `design_check`, `design_plan` and `controller_design_rows`: the controller study's model-free twin and the
plan it makes, before any model call.

`design_check` replays one trajectory under every arm a claim of claims_ctmc compares, with the programmatic
predictor, and writes `pairs.csv` (per claim pair: the steps it scores, how many have identical prompts, differ in
format only, in whether the true next state is named, in evidence coverage; per stratum the steps and the SD of
the twin's per-step difference; the twin's own differences) and `twin.parquet` (the replay's per-step rows).
`design_plan` reads every run's pairs.csv (the twin's effect and its spread between runs need them all) and writes
the run's `plan.json`: the steps a model predictor must be called at, with weights (tailmem.control.design.plan),
`control.plan_calls` per pair of arms or, with `control.plan_budget_s`, the calls a budget buys to decide the
most claims (`design.spend_budget`), and each claim pair's planned power. `controller_design_rows` gathers every
run into the study's rows of the `design_check` table (`records.design.DesignRows`; stage `design_table` adds the
other studies' rows): per claim, the runs planned against `stats.min_units`, the smallest p their test can reach,
the share of informative steps, the twin's effect and spread, the planned power, units, calls and core-seconds,
what 80% power would take, and whether the plan can decide it. It reads the controller study's config groups
only: another study's setting reruns none of these stages.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pandas as pd

from tailmem import paths
from tailmem.artifacts import atomic_path
from tailmem.control import design
from tailmem.control.predict import ProgrammaticPredictor
from tailmem.control.replay import load_run, replay, replayed, retrieved_per_step, tail_states, window_counts
from tailmem.graph_runs import Run, design_runs
from tailmem.llm.client import answers_constrained
from tailmem.memory.arm_names import ArmName
from tailmem.memory.budget import MATCHED, SpentPerStep, controller_settings, resolve
from tailmem.memory.catalogue import arm_settings
from tailmem.memory.controllers import make_controller
from tailmem.memory.tokens import TokenCounter
from tailmem.provenance import save_provenance
from tailmem.records.control import DesignPlan, DesignTwin
from tailmem.records.design import DesignRows
from tailmem.roles import PREDICTOR
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings

log = logging.getLogger(__name__)


def _arm(arm: str, reference: SpentPerStep | None, whole_prompt: bool, seed: int):
    """(controller, budget) of a claim arm; a `-matched` arm spends `reference`'s tokens (Graph Memory's)."""
    a = ArmName.parse(arm)
    extra = {k: v for k, v in (("tau", a.tau), ("order", a.order)) if v is not None}
    settings = arm_settings(a.controller, encoding=a.encoding, **extra)
    if a.matched:
        settings["budget"] = MATCHED
    budget = resolve(settings, whole_prompt=whole_prompt, reference=reference)
    return make_controller(controller_settings(settings, budget), seed=seed), budget


@typed_stage("design_check")
def run(cfg: StageSettings) -> None:
    world, trace = load_run(cfg)
    counter = TokenCounter(encoding=cfg.llm.encoding)
    states, actions = replayed(trace, cfg.control.replay_steps)
    retrieved = retrieved_per_step(trace, len(states))
    whole_prompt = cfg.control.budget_scope == "prompt"
    steps: dict[str, pd.DataFrame] = {}
    reference = None
    for arm in design.claim_arms():  # Graph Memory first: the matched arms spend its measured tokens
        controller, budget = _arm(arm, reference, whole_prompt, int(cfg.seed))
        result = replay(
            world,
            states,
            actions,
            controller,
            ProgrammaticPredictor(),
            counter,
            budget=budget,
            retrieved=retrieved,
        )
        steps[arm] = result.steps
        if reference is None:
            reference = SpentPerStep(result.steps.prompt_tokens.mean(), result.steps.memory_tokens.mean())
    first = steps[design.claim_arms()[0]]
    counts = window_counts(trace.access_step, trace.access_item, trace.n, len(states))
    in_tail = first.state.isin(tail_states(first, counts, cfg.control.tail_fraction)).to_numpy()
    blind_exact = answers_constrained(cfg, PREDICTOR)
    pairs = pd.DataFrame([design.pair_counts(steps, in_tail, p, blind_exact) for p in design.claim_pairs()])
    out = paths.out_dir(cfg, paths.design_dir(cfg.composed))
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(out / paths.PAIRS_FILE) as tmp:
        pairs.assign(family=world.family, n=world.n, seed=int(cfg.seed)).to_csv(tmp, index=False)
    columns = ["step", "prompt_sha", "covered", "mentions_next", "correct"]
    twin = pd.concat([f[columns].assign(arm=arm, in_tail=in_tail) for arm, f in steps.items()], ignore_index=True)
    DesignTwin(twin).write(out / paths.TWIN_FILE)
    save_provenance(out, cfg, agent=ProgrammaticPredictor.name)
    log.info(
        "%s seed %s: twin of %d claim arms over %d steps; informative steps per claim pair: %s",
        world.family,
        cfg.seed,
        len(steps),
        len(states),
        ", ".join(str(int(n)) for n in pairs.informative),
    )


def plan_budget(cfg) -> design.PlanBudget:
    """What the plan may spend (`control.plan_budget_s` at the predictor's `power.call_seconds`) and the power it
    plans for, from the stage's settings."""
    c, pw = cfg.control, cfg.power
    return design.PlanBudget(
        seconds=None if c.plan_budget_s is None else float(c.plan_budget_s),
        rate=float(pw.call_seconds.predictor),
        target=float(pw.target),
        least=float(pw.least),
        alpha=stats_settings(cfg).alpha,
    )


def twin_rows(cfg) -> pd.DataFrame:
    """Every run's pairs.csv of the study (one row per run and claim pair)."""
    return pd.concat(
        [pd.read_csv(design_file(r, cfg.results_dir, paths.PAIRS_FILE)) for r in design_runs(cfg.composed)],
        ignore_index=True,
    )


def allotment(cfg, twin_of: dict[str, design.ClaimTwin], units: int) -> int | dict[tuple[str, str], tuple[int, int]]:
    """Calls per run for each pair of arms: `control.plan_calls` each (tail, and as many other where a claim scores
    every step), or with `control.plan_budget_s` the calls that budget buys to decide the most claims, less what the
    shared sample costs (`design.spend_budget`)."""
    b = plan_budget(cfg)
    if b.seconds is None:
        return int(cfg.control.plan_calls)
    every = [t.steps.mean() for t in twin_of.values() if t.pair.scope == "all"]  # a run's replayed steps
    shared = units * cfg.control.plan_sample * (max(every) if every else 0.0) * len(design.claim_arms()) * b.rate
    return design.spend_budget(twin_of, units, replace(b, seconds=max(b.seconds - shared, 0.0)))


def planned_powers(twin_of: dict[str, design.ClaimTwin], calls, units: int, alpha: float) -> dict[str, float]:
    """Each claim pair's power at its twin's effect over `units` runs when every run draws `calls` (an int per
    pair, or a budget's allocation): the power the plan is made for, before any run's own draws."""
    out = {}
    for label, twin in twin_of.items():
        key = (twin.pair.a, twin.pair.b)
        tail, other = (calls, calls) if isinstance(calls, int) else calls.get(key, (0, 0))
        if twin.zero_by_design or (tail, other) == (0, 0):
            out[label] = 0.0
        else:
            out[label] = twin.power(units, twin.draws(tail, other), alpha)
    return out


@typed_stage("design_plan")
def plan_run(cfg: StageSettings) -> None:
    """One run's plan.json from its twin (`input`: the run's design-check folder) and every run's pairs.csv."""
    folder = Path(cfg.input) if cfg.input else paths.design_dir(cfg.composed)
    frame = DesignTwin.read(folder / paths.TWIN_FILE).frame
    mine = pd.read_csv(folder / paths.PAIRS_FILE)
    family, n, seed = str(mine.family.iloc[0]), int(mine.n.iloc[0]), int(mine.seed.iloc[0])
    rows = twin_rows(cfg)
    twin_of = design.twins(rows)
    units = int(rows.groupby(["family", "seed"]).ngroups)
    calls = allotment(cfg, twin_of, units)
    steps = {arm: g.reset_index(drop=True) for arm, g in frame.groupby("arm", sort=False)}
    in_tail = next(iter(steps.values())).in_tail.to_numpy(bool)
    blind_exact = answers_constrained(cfg, PREDICTOR)
    planned = design.plan(steps, in_tail, calls, cfg.control.plan_sample, design.run_seed(family, n, seed), blind_exact)
    out = paths.out_dir(cfg, folder)
    out.mkdir(parents=True, exist_ok=True)
    pairs = design.arm_pairs()
    allotted = calls if isinstance(calls, dict) else {k: (calls, calls if "all" in v else 0) for k, v in pairs.items()}
    DesignPlan(
        family=family,
        seed=seed,
        arms=design.claim_arms(),
        replayed_steps=len(in_tail),
        informative_steps=planned.informative,
        sample=float(cfg.control.plan_sample),
        steps=planned.steps,
        weights=planned.weights,
        pairs=[vars(p) for p in planned.pairs],
        blind_exact=blind_exact,
        pair_calls=[{"a": a, "b": b, "tail": t, "other": o} for (a, b), (t, o) in allotted.items()],
        planned_power=planned_powers(twin_of, calls, units, plan_budget(cfg).alpha),
        budget_s=plan_budget(cfg).seconds,
    ).write(out / paths.PLAN_FILE)
    log.info(
        "%s seed %s: %d of %d steps informative for some claim pair; plan: %d shared steps, %d pair draws",
        family,
        seed,
        planned.informative,
        len(in_tail),
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


def claims_power(plans: list[DesignPlan]) -> dict[str, float]:
    """The planned power of each claims_ctmc row a claim pair decides (the row's words -> power at the twin's
    effect under the plans' allotment, `DesignPlan.planned_power` of the row's `Claim.planned`): the tail-error rows
    of a tail pair, the overall-error rows of a pair scoring every step. What the claims tables print beside a
    verdict; rows no claim pair plans (tokens, coverage: model-free) are absent."""
    from tailmem.studies.controller.claim_specs import CTMC

    power = plans[0].planned_power if plans else {}
    return {claim.words: power[claim.planned] for claim in CTMC if claim.planned in power}


@typed_stage("controller_design_rows")
def report(cfg: StageSettings) -> None:
    results = cfg.results_dir
    st = stats_settings(cfg)
    runs = design_runs(cfg.composed)
    rows = twin_rows(cfg)
    plans = [DesignPlan.read(design_file(r, results, paths.PLAN_FILE)) for r in runs]
    b = plan_budget(cfg)
    table = design.summarize_pairs(rows, st.min_units, b, plans)
    calls = sum(len(p.arm_calls(a)) for p in plans for a in p.arms)  # at most: a shared prompt shares its call
    table["draws_per_run"] = [draws_per_run(plans, claim) for claim in table.claim]
    c = cfg.scale.control
    rate = cfg.power.call_seconds
    allotted = (
        f"{cfg.control.plan_calls} tail steps and {cfg.control.plan_calls} others where a claim scores every step"
        if b.seconds is None
        else f"the calls a budget of {b.seconds:,.0f} core-seconds (`control.plan_budget_s`) buys to decide the "
        f"most claims at >= {b.least:.0%} power each (`draws_per_run`)"
    )
    note = (
        f"The controller study's model-free twin (programmatic predictor) on the {c.policy} policy's trajectories, "
        f"{len(c.families)} families x {len(c.seeds)} seeds at {c.size} states, "
        f"{'-'.join(dict.fromkeys(str(n) for n in sorted(p.replayed_steps for p in plans)[:: max(len(plans) - 1, 1)]))}"
        f" steps replayed per run (control.replay_steps caps them), budget scope `{cfg.control.budget_scope}`. "
        "Per claim "
        "pair: the share of scored steps whose prompts are identical (difference exactly 0 for any greedy model), "
        "differ in format only, in whether the true next state is named, or in evidence coverage; informative "
        "steps per run (not identical); the runs planned (the independent units) against stats.min_units and the "
        "smallest one-sided p their exact test can reach; the twin's own coverage difference and its error "
        "difference (a - b) `twin_effect`, its SD between runs `sd_between`. Power: `planned_power` is the chance "
        "the claims row decides the claim's side at the twin's effect with the plan's draws, each run's estimate "
        "spreading by sd_between and by its stratified draw (per stratum the larger of the twin's per-step SD and "
        f"an assumed floor, {design.STRATUM_SD}: a model's answers can part more often than the twin's rule; the "
        "exact sign-flip test's power for normal run means, the noncentral t above 10 runs; ties of run means "
        "cost up to about 0.04 of it); `units_for_80` the runs that reach "
        f"{b.target:.0%} at the plan's calls per run, `calls_for_80` the predictor calls over the planned runs that "
        f"reach it (empty: not even every step), `planned_calls` and `core_seconds` the plan's calls for the claim "
        f"(both arms at each draw; pairs of one arm share calls, so these are at most) at {rate.predictor:g} s a "
        "predictor call (`power.call_seconds`). A claim whose arms never differ in evidence on its steps has a "
        "twin effect zero by design and gets no call; a claim the plan cannot decide says so before any model "
        "call. "
        + (
            f"A model predictor is called at most {calls:,} times under `control.plan` "
            f"({len(plans)} runs x {len(plans[0].arms) if plans else 0} claim arms: per pair of arms "
            f"{allotted}, drawn from the steps whose prompts differ, split between strata by the twin's spreads; "
            f"and a shared {cfg.control.plan_sample:g} of every step for each arm's own error; arms that share a "
            "prompt share its call)."
        )
    )
    # NaN stays NaN (JSON's NaN): the table reads back the numbers summarize_pairs gave
    DesignRows("controller", table.to_dict("records"), note).write(
        paths.DESIGN_ROWS.format(results=results, study="controller")
    )
    log.info(
        "design check: %d claims, %d decidable; a planned model replay makes at most %d predictor calls; "
        "%d controller claims planned at >= %.0f%% power",
        len(table),
        int(table.plan.str.startswith("decidable").sum()),
        calls,
        int((table.planned_power >= b.target).sum()),
        100 * b.target,
    )
