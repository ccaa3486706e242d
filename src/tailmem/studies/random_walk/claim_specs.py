"""The random-walk study's claims as data (claims_random_walk): one `Claim` record per row, in row order.

Why records in Python, and how the study fills them: `tailmem.report.claims`. Adding a claim is adding one record
(docs/extending.md, "A claim").
"""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.report.claims import Claim

# the claim column of the study's rows of the design check (design_rows.py): the claims rows it plans name it
DESIGN_CLAIM = "LLM policy vs random walk: tail shape"


@dataclass(frozen=True)
class Concentration:
    """One measure of the concentration contrast: its words in a row, the design check's row that plans it and
    the key of its stated effect (`power.stated_effects`, measured on the model-free twin)."""

    words: str
    design_claim: str
    stated: str


# The measures of paper 1 (Tables 2 and 7, Figure 5's top-ranked share), keyed by the `tables.concentration_frame`
# columns (`<metric>_a`, `<metric>_b`) their rows compare.
CONCENTRATION = {
    "gini": Concentration("Gini", "LLM policy vs random walk: Gini over the same steps", "policy_gini"),
    "top10_share": Concentration(
        "top-10% share", "LLM policy vs random walk: top-10% share over the same steps", "policy_top10_share"
    ),
    "sigma_top10": Concentration(
        "sigma_top10", "LLM policy vs random walk: sigma_top10 over the same steps", "policy_sigma_top10"
    ),
}


def read_at(level, units: int, alpha: float) -> tuple[float | None, str]:
    """The one-sided p a concentration row over `units` worlds is read at, or None and why it cannot be read.
    `level`: its measure's `power.stated_effects.<stated>.level` (settings.power.SimulatedLevel; None: never
    simulated). The sign-flip rule's false HELD on the twin's skewed differences is above alpha at stats.alpha
    (studies/random_walk/twin.py), so a row is read only at the critical p simulated for its own number of units."""
    if level is None:
        return None, "its test's level was not simulated for this design (benchmarks/bench_concentration_verdict.py)"
    if int(level.units) != int(units):
        return None, (
            f"its test's level was simulated at {int(level.units)} worlds, not {int(units)} "
            f"(benchmarks/bench_concentration_verdict.py --units {int(units)})"
        )
    return min(float(level.critical_p), float(alpha)), ""


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

# The same contrast read without a tail fit, at the length a model can afford: a world's access concentration under
# `{policy}` against the random walk's over the same steps on the same world (the walk's trace cut to the policy
# trace's length; `tables.concentration_frame`), one row per measure of CONCENTRATION, each read at the p its
# test's level was simulated for (`read_at`). Evidence fields: a, b (mean of policy and walk), steps, worlds, read
# (the p the row is read at and the rule's simulated false HELD there).
# planned: the design check's row of each measure (power.stated_effects.policy_<metric>).
RANDOM_WALK_CONCENTRATION = tuple(
    Claim(
        f"concentration: {c.words} of {{policy}} minus random walk > 0 (same world, same steps)",
        arm="{policy}",
        baseline="random_walk",
        metric=metric,
        side="greater",
        evidence="{policy} {a:.3f}, random walk {b:.3f} over the first {steps} steps of {worlds} worlds; {read}",
        page="Tables 2, 3 and 7; Figure 5",
        planned=c.design_claim,
    )
    for metric, c in CONCENTRATION.items()
)
