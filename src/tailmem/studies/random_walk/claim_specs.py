"""The random-walk study's claims as data (claims_random_walk): one `Claim` record per row, in row order.

Why records in Python, and how the study fills them: `tailmem.report.claims`. Adding a claim is adding one record
(docs/extending.md, "A claim").
"""

from __future__ import annotations

from tailmem.report.claims import Claim

# the claim column of the study's row of the design check (design_rows.py): the claims rows it plans name it
DESIGN_CLAIM = "LLM policy vs random walk: tail shape"
CONCENTRATION_CLAIM = "LLM policy vs random walk: concentration over the same steps"

# -- paper 1, the random walk (claims_random_walk; tailmem.studies.random_walk.tables.claims) --------------------------
# Each family on its own, then every family pooled (`columns` scope). Evidence fields: a, b (mean Gini of the arm
# and baseline retrieval designs), margin (stats.margins.gini, absolute), slope, r2, means (the size rows' fit of the
# means); for the tail shape: summary (R_tpl_ln over the fitted worlds), fitted, worlds, policy.
# margin "gini": stats.margins.gini, absolute.

RANDOM_WALK_SIZE = tuple(
    Claim(
        f"{metric} rises with graph size",
        metric=metric,
        side="greater",
        over="n",
        evidence="log-log slope of the means {slope:.3f}, R^2 {r2:.3f}; means by size {means}",
        page="Tables 2 and 7",
    )
    for metric in ("gini", "sigma_top10")
)
_DESIGN_PAIRS = (
    ("none", "recency"),
    ("none", "state_mate_uniform"),
    ("recency", "state_aware_frequency"),
    ("state_mate_uniform", "state_aware_frequency"),
)
RANDOM_WALK_DESIGNS = (
    *(
        Claim(
            f"Gini: {lo} < {hi}",
            arm=hi,
            baseline=lo,
            metric="gini",
            side="greater",
            evidence=f"{lo} {{b:.3f}}, {hi} {{a:.3f}}",
            page="Table 8",
            key=f"{lo}<{hi}",
        )
        for lo, hi in _DESIGN_PAIRS
    ),
    Claim(
        "Gini: recency ~ state-mate",
        arm="recency",
        baseline="state_mate_uniform",
        metric="gini",
        side="within",
        margin="gini",
        evidence="recency {a:.3f}, state-mate {b:.3f}; margin ±{margin:g}",
        page="Table 8",
        key="recency~state_mate_uniform",
    ),
    Claim(
        "Gini: none < recency ~ state-mate < state-aware frequency",
        parts=(*(f"{lo}<{hi}" for lo, hi in _DESIGN_PAIRS), "recency~state_mate_uniform"),
        evidence="combines the five rows above",
        page="Table 8",
    ),
)
# Paper 1's central contrast (`{policy}`: the policy whose tails are set beside the random walk's): arm alone, its
# R_tpl_ln against 0; arm and baseline, their difference on the worlds fitted under both. planned: the design check
# plans the paired difference when a model plays the policy (power.stated_effects.policy_tails, per run).
RANDOM_WALK_TAIL_SHAPE = (
    Claim(
        "tail shape: random walk R_tpl_ln < 0 (log-normal favoured)",
        arm="random_walk",
        metric="R_tpl_ln",
        side="less",
        evidence="random walk R_tpl_ln {summary}",
        page="Table 3",
        key="random_walk",
    ),
    Claim(
        "tail shape: {policy} policy R_tpl_ln > 0 (truncated power law favoured)",
        arm="{policy}",
        metric="R_tpl_ln",
        side="greater",
        evidence="{policy} R_tpl_ln {summary}",
        page="Table 3",
        key="tail_policy",
    ),
    Claim(
        "tail shape: R_tpl_ln of {policy} minus random walk > 0 (same world)",
        arm="{policy}",
        baseline="random_walk",
        metric="R_tpl_ln",
        side="greater",
        evidence="{fitted}/{worlds} worlds fitted under both policies",
        page="Table 3",
        planned=DESIGN_CLAIM,
    ),
    Claim(
        "tail shape: random walk favours log-normal, {policy} policy favours truncated power law",
        parts=("random_walk", "tail_policy"),
        evidence="random walk {rw_summary}; {policy} {policy_summary}; worlds without a fitted tail (too small or "
        "degenerate): random walk {rw_unfitted}, {policy} {policy_unfitted}; combines the first two rows above",
        page="Table 3",
    ),
)

# The same contrast read without a tail fit, at the length a model can afford: a world's access concentration
# (Gini) under `{policy}` against the random walk's over the same steps on the same world (the walk's trace cut to
# the policy trace's length; `tables.concentration_frame`). Evidence fields: a, b (mean of policy and walk), steps,
# worlds. Why Gini alone: on the semantic twin's per-world differences (30 worlds of 500 states, 100 steps;
# benchmarks/bench_concentration_verdict.py) the sign-flip rule at 6 worlds holds its level for Gini (false HELD
# 2.8% +- 0.8, skew -0.1) but not for the top-10% share (4.0% +- 1.0: its differences are skewed, -0.7).
# planned: the design check's row of this contrast (power.stated_effects.policy_concentration).
RANDOM_WALK_CONCENTRATION = (
    Claim(
        "concentration: Gini of {policy} minus random walk > 0 (same world, same steps)",
        arm="{policy}",
        baseline="random_walk",
        metric="gini",
        side="greater",
        evidence="{policy} {a:.3f}, random walk {b:.3f} over the first {steps} steps of {worlds} worlds",
        page="Table 3",
        planned=CONCENTRATION_CLAIM,
    ),
)
