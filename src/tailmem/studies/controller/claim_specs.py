"""The controller study's claims as data (claims_ctmc): one `Claim` record per row, in row order.

Why records in Python, and how the study fills them: `tailmem.report.claims`. Adding a claim is adding one record
(docs/extending.md, "A claim").
"""

from __future__ import annotations

from dataclasses import replace

from tailmem.control import arms, design
from tailmem.report import paper1_values as paper
from tailmem.report.claims import Claim

# -- paper 1, the controller study (claims_ctmc; tailmem.studies.controller.tables.claims) --------------------------------
# Evidence fields: a, b (the arm's and the baseline's metric on the row's own steps and weights, so a - b is the row's
# estimate: tables.pair_levels), read (in a planned model replay, the answered steps a and b rest on; else empty),
# a_own, b_own (each arm's own-count tail, its mean over runs), own_read (in a planned model replay, the answered
# steps of each own tail; else empty), a_tokens, b_tokens (tokens/step), margin_pct (the margin, % of the
# baseline's tokens/step), means (a trend's means).
# margin "tokens": stats.margins.tokens_rel of the baseline's tokens/step.
# planned: the design check's claim pair whose planned power (plan.json) stands beside the row (`_planned`).


def _paper_pair(metric: str, enc: str) -> str:
    gm, ct = (paper.controller_value(c, enc, metric) for c in ("graph_memory", "ctmc"))
    return f"paper: Graph Memory {gm:g}, CTMC {ct:g}"


_TAIL = (
    "shared tail: Graph Memory {b:.3f}, CTMC {a:.3f}{read}; each arm's own tail: {b_own:.3f} vs {a_own:.3f}{own_read}"
)
_TOKENS = "tokens/step Graph Memory {b_tokens:.1f}, CTMC {a_tokens:.1f} (both nominal budgets)"
_MATCHED = "shared tail: Graph Memory {b:.3f}, matched CTMC {a:.3f}{read}; tokens/step {b_tokens:.1f} vs {a_tokens:.1f}"
_GM = {enc: arms.baseline("graph_memory", enc) for enc in ("verbose", "compact")}
_CT = {enc: arms.nominal_ctmc(enc) for enc in ("verbose", "compact")}
_MATCHED_CT, _UNIFORM, _SHUFFLED, _REVERSED = arms.table6_arms()
_SCOPE = {"tail_error": "tail", "overall_error": "all"}  # the errors a model's answers make, and the steps each scores
_PAIRS = {(p.a, p.b, p.scope): p.label for p in design.claim_pairs()}


def _planned(arm: str, baseline: str, metric: str) -> str:
    """The label of the design check's claim pair that plans a row comparing `arm` with `baseline` on `metric`
    (`design.claim_pairs`); empty for a model-free metric (tokens, coverage: known without a call)."""
    return _PAIRS.get((arm, baseline, _SCOPE.get(metric)), "")


_TABLE5 = "Table 5"
_TABLE6 = "Table 6"


def _ablation(metric: str) -> tuple[Claim, ...]:
    """At a matched budget `metric` orders CTMC < uniform < shuffled < reversed: three pairs and their closing row."""
    words = metric.replace("_", " ")
    names = ("ctmc", "uniform", "shuffled", "reversed")
    ablation = (_MATCHED_CT, _UNIFORM, _SHUFFLED, _REVERSED)
    pairs = tuple(
        Claim(
            f"At a matched budget {words}: {lo_name} < {hi_name}",
            arm=hi,
            baseline=lo,
            metric=metric,
            side="greater",
            evidence=f"{lo_name} {{b:.3f}}, {hi_name} {{a:.3f}}{{read}}",
            page=_TABLE6,
            key=f"{metric}:{lo_name}<{hi_name}",
        )
        for (lo_name, lo), (hi_name, hi) in zip(zip(names, ablation), zip(names[1:], ablation[1:]))
    )
    return (
        *pairs,
        Claim(
            f"At a matched budget {words} orders CTMC < uniform < shuffled < reversed",
            parts=tuple(c.key for c in pairs),
            evidence="combines: the three pairs above",
            page=_TABLE6,
        ),
    )


_CTMC = (
    # Table 5's arms: each at its own nominal budget, so tokens/step is a measured outcome with a side per encoding
    # as the paper reports it (compact: about equal, 155.7 vs 156.4; verbose: more, 200.3 vs 170.7).
    Claim(
        "CTMC lowers tail error vs Graph Memory (verbose)",
        arm=_CT["verbose"],
        baseline=_GM["verbose"],
        metric="tail_error",
        side="less",
        evidence=_TAIL,
        paper=_paper_pair("tail_error", "verbose"),
        page=_TABLE5,
    ),
    Claim(
        "CTMC raises tail coverage vs Graph Memory (verbose)",
        arm=_CT["verbose"],
        baseline=_GM["verbose"],
        metric="tail_coverage",
        side="greater",
        evidence=_TAIL,
    ),
    Claim(
        "CTMC spends more tokens/step than Graph Memory (verbose)",
        arm=_CT["verbose"],
        baseline=_GM["verbose"],
        metric="tokens_per_step",
        side="greater",
        evidence=_TOKENS,
        paper=_paper_pair("tokens_per_step", "verbose"),
        page=_TABLE5,
    ),
    Claim(
        "CTMC lowers tail error vs Graph Memory (compact)",
        arm=_CT["compact"],
        baseline=_GM["compact"],
        metric="tail_error",
        side="less",
        evidence=_TAIL,
        paper=_paper_pair("tail_error", "compact"),
        page=_TABLE5,
        key="compact:tail_error",
    ),
    Claim(
        "CTMC raises tail coverage vs Graph Memory (compact)",
        arm=_CT["compact"],
        baseline=_GM["compact"],
        metric="tail_coverage",
        side="greater",
        evidence=_TAIL,
        key="compact:tail_coverage",
    ),
    Claim(
        "CTMC spends equal or fewer tokens/step than Graph Memory (compact)",
        arm=_CT["compact"],
        baseline=_GM["compact"],
        metric="tokens_per_step",
        side="less",
        margin="tokens",
        evidence=_TOKENS + "; margin {margin_pct:g}% of Graph Memory's",
        paper=_paper_pair("tokens_per_step", "compact"),
        page=_TABLE5,
        key="compact:tokens",
    ),
    Claim(
        "CTMC lowers tail error vs Graph Memory at equal or fewer tokens (compact)",
        parts=("compact:tail_error", "compact:tokens"),
        evidence="combines: tail error and tokens/step rows (compact)",
    ),
    Claim(
        "CTMC raises tail coverage vs Graph Memory at equal or fewer tokens (compact)",
        parts=("compact:tail_coverage", "compact:tokens"),
        evidence="combines: tail coverage and tokens/step rows (compact)",
    ),
    # The fair comparison at one spend: CTMC pinned to Graph Memory's measured tokens (Table 6's CTMC arm).
    Claim(
        "At Graph Memory's measured budget CTMC lowers tail error vs Graph Memory (compact)",
        arm=_MATCHED_CT,
        baseline=_GM["compact"],
        metric="tail_error",
        side="less",
        evidence=_MATCHED,
        page=_TABLE6,
    ),
    Claim(
        "At Graph Memory's measured budget CTMC raises tail coverage vs Graph Memory (compact)",
        arm=_MATCHED_CT,
        baseline=_GM["compact"],
        metric="tail_coverage",
        side="greater",
        evidence=_MATCHED,
    ),
    *_ablation("tail_error"),
    *_ablation("overall_error"),
    *(
        Claim(
            f"Matched budgets are matched: {name} vs CTMC tokens/step",
            arm=arm,
            baseline=_MATCHED_CT,
            metric="tokens_per_step",
            side="within",
            margin="tokens",
            evidence="{a_tokens:.1f} vs {b_tokens:.1f}; margin ±{margin_pct:g}% of CTMC's",
            page=_TABLE6,
        )
        for name, arm in (("uniform", _UNIFORM), ("shuffled", _SHUFFLED), ("reversed", _REVERSED))
    ),
    *(
        Claim(
            f"{metric} of access rises with tau",
            metric=metric,
            side="greater",
            over="tau",
            unit="run (family x seed)",
            evidence="slope per run (family x seed) of the metric on tau; means: {means}",
            page="Figure 6",
        )
        for metric in ("gini", "skew", "max_median")
    ),
)
# each compared error row planned by its claim pair
CTMC = tuple(replace(c, planned=_planned(c.arm, c.baseline, c.metric)) for c in _CTMC)
