"""Stage `random_walk_design_rows`: the design check's row of the LLM policy's tails beside the random walk's,
before any model call.

The paired tail-shape claim (the LLM policy's tail against the random walk's on the same world, per run) is planned
from its stated effect (`tailmem.power.stated`) over the runs a model plays the policy in, or says the scale's
tails come from the model-free proxy. The row reads the `scale`, `rollout`, `power` and `stats` groups only; the
study's claims table prints the same row's power beside its verdicts.
"""

from __future__ import annotations

from tailmem import paths
from tailmem.graph_runs import contrast_worlds
from tailmem.power import stated
from tailmem.records.design import DesignRows
from tailmem.roles import tail_policy
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings
from tailmem.studies.random_walk.claim_specs import CONCENTRATION, DESIGN_CLAIM, read_at

# policy steps a run needs before its tail can be fitted at all (n_tail >= audit.min_tail): the semantic proxy's
# tails fit in 33-50% of runs at 2,000 steps on 150-500 states and in 77% on 1,000 states
# (benchmarks/bench_tail_sizes.py --grid); fewer steps plan no tail-shape claim, whatever the runs
TAIL_FIT_STEPS = 2000


def model_steps(cfg) -> int:
    """A run's policy steps when the model plays it (`RolloutGroup.for_policy`: rollout.model_episodes)."""
    r = cfg.rollout
    return int(getattr(r, "model_episodes", None) or r.episodes) * int(r.steps)


def row(cfg, min_units: int, alpha: float) -> dict:
    """The design-check row of the policy's tails: a model plays the policy (`scale.control.tail_policy` llm) in
    every family's runs on the contrast worlds (`graph_runs.policy_runs`), each calling it once a step. Runs
    shorter than a fit needs (TAIL_FIT_STEPS) plan no power: their calls decide no tail row."""
    s = cfg.scale
    steps = model_steps(cfg)
    tails = tail_policy(cfg)
    if tails == "llm":
        units = len(s.families) * len(contrast_worlds(s.control)[1])
        out = stated.claim_row(cfg.power, "policy_tails", DESIGN_CLAIM, "runs", units, min_units, alpha, steps)
        if steps < TAIL_FIT_STEPS and not out["plan"].startswith("undecidable"):
            out |= {
                "plan": f"undecidable by design: {steps:,} policy steps a run, a fittable tail takes about "
                f"{TAIL_FIT_STEPS:,} (benchmarks/bench_tail_sizes.py --grid); the concentration row reads these runs",
                "planned_power": 0.0,
            }
        return out
    why = (
        f"not run at this scale (scale.control.tail_policy {tails}): a fittable tail (audit.min_tail states) "
        f"takes about {TAIL_FIT_STEPS:,} policy steps on a world of 1,000 states in 77-83% of the semantic proxy's "
        "runs (benchmarks/bench_tail_sizes.py --grid); scale paper_model runs the LLM policy that long "
        "(benchmarks/plan_model_slice.py prints its cost)"
    )
    return stated.unplayed_row(cfg.power, "policy_tails", DESIGN_CLAIM, "runs", why, min_units, alpha, steps)


def concentration_row(cfg, metric: str, min_units: int, alpha: float) -> dict:
    """The design-check row of the concentration contrast by one measure (`claim_specs.CONCENTRATION`: the
    policy's Gini, top-10% share or sigma_top10 minus the walk's over the same steps): the same runs, no fit
    needed, planned from the semantic twin's stated effect of that measure at the p the row is read at (its
    test's level simulated on the twin for these units: `claim_specs.read_at`)."""
    s, steps, tails, c = cfg.scale, model_steps(cfg), tail_policy(cfg), CONCENTRATION[metric]
    if tails == "llm":
        units = len(s.families) * len(contrast_worlds(s.control)[1])
        level = cfg.power.stated_effects[c.stated].level
        critical, why = read_at(level, units, alpha)
        out = stated.claim_row(cfg.power, c.stated, c.design_claim, "runs", units, min_units, alpha, steps)
        if out["plan"].startswith("undecidable"):  # too few runs: the level does not matter
            return out
        if critical is None:
            return out | {"plan": f"undecidable as set: {why}", "planned_power": 0.0}
        out = stated.claim_row(cfg.power, c.stated, c.design_claim, "runs", units, min_units, critical, steps)
        return out | {
            "plan": f"{out['plan']}; read at p <= {critical:.4g}, where the twin's false HELD is "
            f"{level.false_held:.1%} ({level.at_alpha:.1%} at {alpha:g})"
        }
    why = (
        f"not run at this scale (scale.control.tail_policy {tails}): the model plays the policy where tail_policy "
        "is llm (smoke_model, default_model, overnight_model, paper_model)"
    )
    return stated.unplayed_row(cfg.power, c.stated, c.design_claim, "runs", why, min_units, alpha, steps)


def rows(cfg, min_units: int, alpha: float) -> list[dict]:
    """The study's rows of the design check: the tail-shape pair, then the concentration pair by each measure."""
    return [row(cfg, min_units, alpha), *(concentration_row(cfg, m, min_units, alpha) for m in CONCENTRATION)]


@typed_stage("random_walk_design_rows")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    DesignRows("random_walk", rows(cfg, st.min_units, st.alpha)).write(
        paths.DESIGN_ROWS.format(results=cfg.results_dir, study="random_walk")
    )
