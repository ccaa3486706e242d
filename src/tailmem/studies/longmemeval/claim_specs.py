"""The LongMemEval study's claims as data (claims_longmemeval): one `Claim` record per row, in row order.

Why records in Python, and how the study fills them: `tailmem.report.claims`. Adding a claim is adding one record
(docs/extending.md, "A claim").
"""

from __future__ import annotations

from tailmem.report.claims import Claim

# the claim column of the study's row of the design check (design_rows.py): the claims rows it plans name it
DESIGN_CLAIM = "LongMemEval: arms on the same questions"
CONTEXT_DESIGN_CLAIM = "LongMemEval: the reader with and without the evidence"

# -- paper 1, LongMemEval (claims_longmemeval; tailmem.studies.longmemeval.tables.claims) ------------------------------
# One set per dataset (`columns` dataset), decided at the measured budget: the last CTMC budget of the sweep whose
# accuracy and coverage stay non-inferior (margin "noninferiority": longmemeval.noninferiority_margin, absolute).
# Evidence fields: head (the measured budget, or why there is none), measured (the comparison, `+d [lo, hi]`),
# sweep (the measured reduction or its lower bound), check (the context check's comparison, when it ran).
# planned: the design check plans the accuracy row (power.stated_effects.longmemeval: accuracy per question) and
# the context row (power.stated_effects.longmemeval_context).

LONGMEMEVAL_TOKEN_REDUCTION_PCT = 24.48  # CTMC vs Graph Memory on LongMemEval, "while maintaining aggregate accuracy"
_LME_PAPER = f"{LONGMEMEVAL_TOKEN_REDUCTION_PCT}% fewer prompt tokens, aggregate accuracy maintained"
_LME_CTMC, _LME_GM = "ctmc", "graph_memory"
LONGMEMEVAL = (
    Claim(
        "CTMC accuracy non-inferior to Graph Memory (margin {margin:g})",
        arm=_LME_CTMC,
        baseline=_LME_GM,
        metric="accuracy",
        side="greater",
        margin="noninferiority",
        unit="question",
        evidence="{head}; accuracy CTMC - Graph Memory {measured}",
        paper=_LME_PAPER,
        key="accuracy",
        planned=DESIGN_CLAIM,
    ),
    Claim(
        "CTMC evidence coverage non-inferior to Graph Memory (margin {margin:g})",
        arm=_LME_CTMC,
        baseline=_LME_GM,
        metric="coverage",
        side="greater",
        margin="noninferiority",
        unit="question",
        evidence="{head}; coverage CTMC - Graph Memory {measured}",
        paper=_LME_PAPER,
        key="coverage",
    ),
    Claim(
        "CTMC spends fewer prompt tokens than Graph Memory at a non-inferior budget",
        arm=_LME_CTMC,
        baseline=_LME_GM,
        metric="token_reduction_pct",
        side="greater",
        unit="question",
        evidence=f"{{sweep}}; paper 1: {LONGMEMEVAL_TOKEN_REDUCTION_PCT}%",
        paper=_LME_PAPER,
    ),
    Claim(
        f"CTMC's reduction at a non-inferior budget is at least paper 1's {LONGMEMEVAL_TOKEN_REDUCTION_PCT}%",
        arm=_LME_CTMC,
        baseline=_LME_GM,
        metric="token_reduction_pct",
        side="greater",
        threshold=LONGMEMEVAL_TOKEN_REDUCTION_PCT,
        unit="question",
        evidence="{sweep}",
        paper=_LME_PAPER,
        key="as_paper",
    ),
    Claim(
        "The reader responds to context: Graph Memory's accuracy falls with the gold evidence removed",
        arm=_LME_GM,
        baseline="no_evidence",
        metric="accuracy",
        side="greater",
        unit="question",
        evidence="Graph Memory with - without the answer-bearing turns, same questions{check}",
        paper="not in paper 1 (its reader is a model); ours, so that non-inferior accuracy means something",
        key="context",
        planned=CONTEXT_DESIGN_CLAIM,
    ),
    Claim(
        f"Paper 1: CTMC cuts prompt tokens by {LONGMEMEVAL_TOKEN_REDUCTION_PCT}% while maintaining accuracy",
        parts=("accuracy", "coverage", "as_paper"),
        evidence="combines: accuracy, coverage and at-least-paper rows",
        paper=_LME_PAPER,
    ),
)
