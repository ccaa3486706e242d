"""What a model slice will cost, from a measured slice's per-call rates, and what its calls can decide (prints,
never asserts).

Why: a slice is sized before it runs. The calls a slice makes per unit (a policy step, a planned prediction, a
question, a game) and the seconds each takes are measured in another slice's call cache (`latency_s` per row);
this script counts the target slice's units from its config and prints, per (role, stage), the measured calls
and seconds per call, the factor from the measured slice's units to the target's, and the target's calls and
hours (one core; divide by the jobs that run side by side).

Then, per claim, what those calls buy: the controller claims' planned power at their model-free twin's effect
(the design check's pairs.csv of `--twin-scale`, the target's own when it ran, read as if the target's runs were
like them), the predictor calls and hours of the target's plan (`control.plan_calls`, or the calls
`control.plan_budget_s` or `--budget-hours` buys to decide the most claims: tailmem.control.design.spend_budget),
and the other studies' rows at their stated effects (`power.stated_effects`); and the total against the budget.

    python benchmarks/plan_model_slice.py --measured default_model --cache results/model/llm_cache.sqlite \
        --target paper_model --twin-scale default_model --budget-hours 16
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

LOCOMO_CONV50_QUESTIONS = 158  # non-adversarial questions of conv-50 (fsmem.max_questions: null)
LONGMEMEVAL_TYPES = 6  # question types; max_per_type: null counts 500 oracle questions
ALFWORLD_VALID_SEEN = 140


def units(cfg, stage: str) -> float:
    """How many units of work `stage` does at this config's scale (the factor's numerator or denominator)."""
    s = cfg.scale
    if stage == "rollout":  # the policy's steps: every LLM-policy run (the tail rows' runs, the trajectories')
        from tailmem.graph_runs import policy_runs
        from tailmem.roles import tail_policy

        if tail_policy(cfg) != "llm" and s.control.policy != "llm":
            return 0.0
        from tailmem.studies.random_walk.design_rows import model_steps

        runs = len(policy_runs(cfg)) + (
            len(s.families) * len(s.sizes) * len(s.seeds) if s.control.policy == "llm" else 0
        )
        return runs * model_steps(cfg)  # the steps a model plays (rollout.model_episodes where set)
    if stage == "control":  # planned predictions per run (at most: a shared prompt shares its call)
        c = s.control
        runs = len(c.families) * len(c.seeds)
        if cfg.control.plan and cfg.control.plan_budget_s is not None:  # the calls the budget buys, all runs
            return float(cfg.control.plan_budget_s) / float(cfg.power.call_seconds.predictor)
        if cfg.control.plan:
            from tailmem.control.design import arm_pairs, claim_arms

            k = cfg.control.plan_calls
            pairs = sum(2 * (k + (k if "all" in scopes else 0)) for scopes in arm_pairs().values())
            shared = cfg.control.plan_sample * (cfg.control.replay_steps or 500) * len(claim_arms())
            return runs * (pairs + shared)
        steps = cfg.control.predict_steps or cfg.control.replay_steps or cfg.rollout.episodes * cfg.rollout.steps
        return runs * 16 * steps
    if stage.startswith("fsmem") or stage in ("judge_sensitivity", "model_roles"):
        q = cfg.fsmem.max_questions
        return float(q if q is not None else LOCOMO_CONV50_QUESTIONS)
    if stage.startswith("longmemeval"):
        lme = cfg.longmemeval
        per_type = lme.max_per_type
        n = per_type * LONGMEMEVAL_TYPES if per_type is not None else 500
        if lme.max_questions is not None:
            n = min(n, lme.max_questions)
        return float(n * len(lme.datasets) * len(lme.seeds))
    if stage.startswith("alfworld"):
        a = cfg.alfworld
        games = a.max_games if a.max_games is not None else ALFWORLD_VALID_SEEN
        return float(games * a.max_steps)
    return 1.0


def claim_plan(target, twin_scale: str, budget_hours: float | None, twin_overrides=()) -> None:
    """Per claim: planned power, units, predictor calls and hours of the target's plan at its twin's effect, the
    other studies' rows at their stated effects; the total against the budget."""
    import pandas as pd
    from omegaconf import OmegaConf

    from tailmem import paths
    from tailmem.control import design
    from tailmem.graph_runs import design_runs
    from tailmem.stats.group import settings as stats_settings
    from tailmem.studies.alfworld import design_rows as alfworld_rows
    from tailmem.studies.controller.design_check import allotment, plan_budget, planned_powers
    from tailmem.studies.fsmem import design_rows as fsmem_rows
    from tailmem.studies.longmemeval import design_rows as longmemeval_rows
    from tailmem.studies.random_walk import design_rows as policy_rows
    from tailmem.workflow import compose_config

    twin_cfg = compose_config(twin_scale, list(twin_overrides))
    files = [
        Path(paths.DESIGN.format(**r.keys(twin_cfg.results_dir))) / paths.PAIRS_FILE for r in design_runs(twin_cfg)
    ]
    missing = [f for f in files if not f.exists()]
    if missing:
        print(
            f"\nno per-claim plan: {len(missing)} of {len(files)} design-check pairs.csv of {twin_scale} missing "
            f"(run `snakemake --config scale={twin_scale} -- controller_design_rows` first), e.g. {missing[0]}"
        )
        return
    rows = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    twins = design.twins(rows)
    if budget_hours is not None:
        target = OmegaConf.merge(target, {"control": {"plan_budget_s": budget_hours * 3600}})
    st = stats_settings(target)
    units = len(design_runs(target))
    b = plan_budget(target)
    calls = allotment(target, twins, units)  # as the design_plan stage allots them (the shared sample first)
    power = planned_powers(twins, calls, units, st.alpha)
    how = f"control.plan_calls {calls} per pair" if b.seconds is None else f"a budget of {b.seconds / 3600:.1f} h"
    print(f"\n{target.scale.name}: {units} runs, planned by {how}; the twin of {twin_scale} ({len(files)} runs)")
    print(
        "| claim | twin effect | SD between runs | draws per run | predictor calls | hours (1 core) | planned power |"
    )
    print("|---|---|---|---|---|---|---|")
    pair_calls: dict[tuple[str, str], float] = {}  # a pair of arms' calls: its overall claim's draws hold its tail's
    for label, twin in twins.items():
        key = (twin.pair.a, twin.pair.b)
        tail, other = (calls, calls) if isinstance(calls, int) else calls.get(key, (0, 0))
        n = 0.0 if twin.zero_by_design or (tail, other) == (0, 0) else twin.calls(twin.draws(tail, other), units)
        pair_calls[key] = max(pair_calls.get(key, 0.0), n)
        word = " (zero by design)" if twin.zero_by_design else ""
        print(
            f"| {label}{word} | {twin.effect:+.3f} | {twin.sd_between:.3f} | {n / 2 / units:.0f} | {n:,.0f} | "
            f"{n * b.rate / 3600:.1f} | {power[label]:.2f} |"
        )
    c = target.control
    every = [t.steps.mean() for t in twins.values() if t.pair.scope == "all"]
    shared = units * c.plan_sample * (max(every) if every else 0.0) * len(design.claim_arms()) * b.rate
    controller_s = sum(pair_calls.values()) * b.rate + shared
    other_s = 0.0
    stated = [  # each study's design-check rows
        fsmem_rows.row(target, st.min_units, st.alpha),
        *longmemeval_rows.rows(target, st.min_units, st.alpha),
        alfworld_rows.row(target, st.min_units, st.alpha),
    ]
    policy = policy_rows.rows(target, st.min_units, st.alpha)  # claims on the same runs: their calls once
    policy_s = max((r["core_seconds"] for r in policy if r["core_seconds"] == r["core_seconds"]), default=0.0)
    other_s += policy_s
    for r in stated + policy:
        other_s += r["core_seconds"] if r in stated and r["core_seconds"] == r["core_seconds"] else 0.0
        print(
            f"| {r['claim']} | {r['stated_effect']:+.3f} (stated) | {r['stated_sd']:.3f} | {r['calls_per_unit']:,.0f} "
            f"per {r['scope'][:-1]} | {r['planned_calls']:,.0f} | {r['core_seconds'] / 3600:.1f} | "
            f"{r['planned_power']:.2f} |"
        )
    against = f" against a budget of {b.seconds / 3600:.1f} h" if b.seconds is not None else ""
    print(
        f"\ncontroller claims: {controller_s / 3600:.1f} core-hours{against} (pairs of arms counted once, the shared "
        f"{c.plan_sample:g} sample included, at most: pairs sharing an arm share calls); expected decisions "
        f"{sum(power.values()):.1f} of {len(twins)}; the other studies' rows: {other_s / 3600:.1f} core-hours at "
        "power.call_seconds (the LLM policy's rows share their runs' calls)"
    )
    whole = (controller_s + other_s) / 3600
    print(
        f"{target.scale.name}'s planned claims in all: {whole:.1f} core-hours, about {whole / 2:.1f} h with 2 model "
        "jobs side by side (the probes and judge_sensitivity are in the table above, not here)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--measured", default="default_model", help="the scale whose slice made the cache")
    ap.add_argument("--cache", type=Path, default=Path("results/model/llm_cache.sqlite"))
    ap.add_argument("--target", default="paper_model")
    ap.add_argument("--jobs", type=int, default=2, help="model jobs side by side (one core each)")
    ap.add_argument(
        "--policy-seconds",
        type=float,
        default=8.3,
        help="seconds per LLM-policy step when the measured slice played no policy (smoke_model's measured rate)",
    )
    ap.add_argument(
        "--game-step",
        type=float,
        nargs=2,
        default=(1.2, 17.2),
        metavar=("CALLS", "SECONDS"),
        help="executor calls per ALFWorld game step and seconds per call when the measured slice played no game "
        "(default_model at commit dd54d3e: 24 calls over 2 games x 10 steps, 17 at 12.6 s and 7 at 28.4 s)",
    )
    ap.add_argument(
        "--twin-scale",
        default=None,
        help="the scale whose design check's twin plans the claims (default: the target's)",
    )
    ap.add_argument(
        "--twin-override",
        action="append",
        default=[],
        help="a Hydra override of the twin's scale (repeatable), e.g. results_dir=results/smoke8",
    )
    ap.add_argument(
        "--budget-hours",
        type=float,
        default=None,
        help="core-hours the controller claims' plan may "
        "spend (default: the target's control.plan_budget_s; null there: control.plan_calls)",
    )
    args = ap.parse_args()
    from tailmem.workflow import compose_config

    measured, target = compose_config(args.measured), compose_config(args.target)
    if not args.cache.exists():
        print(f"no call cache at {args.cache}: no measured rates (the per-claim plan below uses power.call_seconds)")
        claim_plan(target, args.twin_scale or args.target, args.budget_hours, args.twin_override)
        return
    with sqlite3.connect(args.cache) as conn:
        rows = conn.execute(
            "SELECT role, stage, COUNT(*), AVG(latency_s), AVG(prompt_tokens) FROM calls GROUP BY role, stage"
        ).fetchall()
    print(
        f"| role | stage | calls ({args.measured}) | s/call | prompt tokens/call | factor | calls ({args.target}) | hours (1 core) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    total_calls = total_s = 0.0
    for role, stage, n, latency, prompt in rows:
        factor = units(target, stage) / max(units(measured, stage), 1e-9)
        calls, seconds = n * factor, n * factor * latency
        total_calls, total_s = total_calls + calls, total_s + seconds
        print(
            f"| {role} | {stage} | {n} | {latency:.2f} | {prompt:.0f} | {factor:.1f} | {calls:,.0f} | {seconds / 3600:.1f} |"
        )
    if not any(stage == "rollout" for _, stage, *_ in rows) and units(target, "rollout"):
        calls = units(target, "rollout")  # the measured slice played no policy: the rate is a stated one
        total_calls, total_s = total_calls + calls, total_s + calls * args.policy_seconds
        print(
            f"| policy | rollout | 0 | {args.policy_seconds:.2f} (stated: --policy-seconds) | - | - | {calls:,.0f} | "
            f"{calls * args.policy_seconds / 3600:.1f} |"
        )
    if not any(stage.startswith("alfworld") for _, stage, *_ in rows) and target.alfworld.subsets:
        per_step, seconds = args.game_step  # the measured slice played no game: the rates are stated ones
        calls = units(target, "alfworld") * per_step
        total_calls, total_s = total_calls + calls, total_s + calls * seconds
        print(
            f"| executor | alfworld | 0 | {seconds:.2f} (stated: --game-step) | - | - | {calls:,.0f} | "
            f"{calls * seconds / 3600:.1f} |"
        )
    print(
        f"\n{args.target}: about {total_calls:,.0f} calls, {total_s / 3600:.1f} core-hours at {args.measured}'s "
        f"measured rates; {total_s / 3600 / args.jobs:.1f} h with {args.jobs} model jobs side by side"
    )
    claim_plan(target, args.twin_scale or args.target, args.budget_hours, args.twin_override)


if __name__ == "__main__":
    main()
