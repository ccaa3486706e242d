"""The filesystem-memory study's claims as data (claims_fsmem): the main rows, and the harness and searcher-ladder
templates read over the harnesses and searchers a run holds.

Why records in Python, and how the study fills them: `tailmem.report.claims`. Adding a claim is adding one record
(docs/extending.md, "A claim").
"""

from __future__ import annotations

from tailmem.report import paper2_values as paper2
from tailmem.report.claims import EVERY_ROW_BEFORE, Claim

# the claim column of the study's row of the design check (design_rows.py): the claims rows it plans name it
DESIGN_CLAIM = "fsmem: arms on the same LoCoMo questions"

# -- paper 2, the file-based memory study (claims_fsmem; tailmem.studies.fsmem.claims.claims) --------------------------
# Arms are `variant`s of the main study (RQ1/RQ2); the harness (RQ5) and strength (RQ3) claims are templates read
# over the harnesses and searchers a run holds. Metric "score": the judge's verdict when both arms were judged on
# every question, else token F1; "f1": token F1 always; "cost": search dollars when a model was billed, else the
# characters of tool output. margin "fsmem_tie": stats.margins.fsmem_tie, absolute. Evidence is the same sentence
# on every row (the study fills it), so these claims hold none. planned: the design check plans the token-F1 rows of
# a store against closed book on LoCoMo (power.stated_effects.fsmem: an F1 effect per question); no other row.

FSMEM_NO_NUMBER = "the summary gives no number for this comparison"


def _pct_range(pair: tuple[float, float]) -> str:
    return f"{pair[0]:g}-{pair[1]:g}%"


def _cents(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.1f}-{pair[1]:.1f} cents/q"


def _organization_paper(arm: str, baseline: str) -> str:
    pm = paper2.PERSONAMEM_32K_CORRECT_PCT
    text = "§5: no measured agent converted organization itself into better answers"
    if arm in pm and baseline in pm:
        text += f"; D.1 PersonaMem 32k: {arm} {pm[arm]:g}% vs {baseline} {pm[baseline]:g}%"
    return text


def fsmem_searcher_paper(weaker: str, stronger: str) -> str:
    """§4.3's searcher ladder for one step up it (the steps are the run's searchers, so this is filled then)."""
    s = paper2.RQ3_SEARCHER_CORRECT_PCT_ABOUT
    if weaker in s and stronger in s:
        return f"§4.3: search correctness about {s[weaker]:g}% ({weaker}) -> {s[stronger]:g}% ({stronger})"
    ladder = " -> ".join(f"{v:g}%" for v in s.values())
    return f"§4.3: search correctness about {ladder} up the nano/mini/gpt-5.4 searcher ladder"


_HARNESS_PAPER = (
    f"Table 9: correctness across tool sets LoCoMo {_pct_range(paper2.RQ5_CORRECT_PCT['locomo'])}, PersonaMem 128k "
    f"{_pct_range(paper2.RQ5_CORRECT_PCT['personamem_128k'])} (no REALTALK number)"
)
_CENTS = paper2.RQ2_PERSONAMEM_CENTS_PER_QUERY
# (more organized, less organized): layout only (foldered, reorganized_preserve keep every byte or fact of the
# verbatim dump), then layout and content together (agent_curated against both unorganized baselines)
_ORGANIZATION_PAIRS = (
    ("foldered", "verbatim"),
    ("reorganized_preserve", "verbatim"),
    ("agent_curated", "verbatim"),
    ("agent_curated", "chunk_retrieval"),
)
FSMEM_MAIN = (
    # the judged row (token F1 where no judge covered the questions), and beside it always the benchmark's own
    # scorer (LoCoMo's token F1), which a small judge does not bias: a judge that marks a partly right answer wrong
    # leaves few discordant questions. Both rows exist either way, so the table has the same rows under every judge
    # (judge_sensitivity lines them up).
    *(
        Claim(
            f"A file-based store ({v}) answers better than closed book{label}",
            arm=v,
            baseline="closed_book",
            metric=metric,
            side="greater",
            unit="question",
            paper=FSMEM_NO_NUMBER,
            planned=DESIGN_CLAIM if metric == "f1" else "",
        )
        for v in ("verbatim", "agent_curated")
        for metric, label in (("score", ""), ("f1", " (token F1, the benchmark's scorer)"))
    ),
    *(
        Claim(
            f"Organization does not buy better answers: {arm} no better than {base}",
            arm=arm,
            baseline=base,
            metric="score",
            side="less",
            margin="fsmem_tie",
            unit="question",
            paper=_organization_paper(arm, base),
            page="§5",
        )
        for arm, base in _ORGANIZATION_PAIRS
    ),
    *(
        Claim(
            f"Organization buys search economy: {arm} costs less to search than verbatim",
            arm=arm,
            baseline="verbatim",
            metric="cost",
            side="less",
            unit="question",
            paper=f"§4.2 PersonaMem: reorganizers {_cents(_CENTS['reorganized'])} vs verbatim "
            f"{_cents(_CENTS['verbatim'])} (no LoCoMo or REALTALK cost)",
            page="§4.2",
        )
        for arm in ("reorganized_condense", "reorganized_preserve", "agent_curated")
    ),
)
# every pair of the harnesses a variant ran, then the row that combines them (`{variant}`, `{a}`, `{b}`)
FSMEM_HARNESS_PAIR = Claim(
    "The harnesses tie ({variant}): {a} vs {b}",
    arm="{a}",
    baseline="{b}",
    metric="score",
    side="within",
    margin="fsmem_tie",
    unit="question",
    paper=_HARNESS_PAPER,
    page="§4.5, Table 9",
)
FSMEM_HARNESS_ALL = Claim(
    "The harnesses tie ({variant}): every pair within the margin",
    parts=(EVERY_ROW_BEFORE,),
    paper=_HARNESS_PAPER,
    page="§4.5, Table 9",
)
# each step up the searcher ladder at a fixed builder (`{weaker}`, `{stronger}`, `{builder}`)
FSMEM_STRENGTH = Claim(
    "A stronger search model answers better: {stronger} over {weaker} (builder {builder})",
    arm="{stronger}",
    baseline="{weaker}",
    metric="score",
    side="greater",
    unit="question",
    page="§4.3",
)
