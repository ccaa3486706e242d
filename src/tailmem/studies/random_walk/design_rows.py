"""Stage `random_walk_design_rows`: the design check's row of the LLM policy's tails beside the random walk's,
before any model call.

The paired tail-shape claim (the LLM policy's tail against the random walk's on the same world, per run) is planned
from its stated effect (`tailmem.control.stated`) over the runs a model plays the policy in, or says the scale's
tails come from the model-free proxy. The row reads the `scale`, `rollout`, `power` and `stats` groups only; the
study's claims table prints the same row's power beside its verdicts.
"""

from __future__ import annotations

from tailmem import paths
from tailmem.control import stated
from tailmem.records.design import DesignRows
from tailmem.roles import tail_policy
from tailmem.settings.stage import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.settings import settings as stats_settings
from tailmem.studies.random_walk.claim_specs import DESIGN_CLAIM


def row(cfg, min_units: int, alpha: float) -> dict:
    """The design-check row of the policy's tails: a model plays the policy (`scale.control.tail_policy` llm) in
    every family's runs of `scale.control.seeds` (`graph_runs.policy_runs`), each calling it once a step."""
    s = cfg.scale
    steps = int(cfg.rollout.episodes) * int(cfg.rollout.steps)  # a run's policy steps
    tails = tail_policy(cfg)
    if tails == "llm":
        units = len(s.families) * len(s.control.seeds)
        return stated.claim_row(cfg.power, "policy_tails", DESIGN_CLAIM, "runs", units, min_units, alpha, steps)
    why = (
        f"not run at this scale (scale.control.tail_policy {tails}): a fittable tail (audit.min_tail states) "
        "takes about 2,000 policy steps on a world of 1,000 states in 77-83% of the semantic proxy's runs "
        "(benchmarks/bench_tail_sizes.py --grid); scales overnight_model and paper_model run the LLM policy "
        "(benchmarks/plan_model_slice.py prints their cost)"
    )
    return stated.unplayed_row(cfg.power, "policy_tails", DESIGN_CLAIM, "runs", why, min_units, alpha, steps)


@typed_stage("random_walk_design_rows")
def run(cfg: StageSettings) -> None:
    st = stats_settings(cfg)
    mine = row(cfg, st.min_units, st.alpha)
    DesignRows("random_walk", [mine]).write(paths.DESIGN_ROWS.format(results=cfg.results_dir, study="random_walk"))
