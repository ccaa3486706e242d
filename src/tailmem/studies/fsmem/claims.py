"""Paper 2's claims that our LoCoMo and REALTALK answers can test, one compared metric per row (`claims_fsmem`).

Pure: a frame of per-question answers in, the claims frame out. The answers frame has one row per question an arm
answered, with the columns `ANSWER_COLUMNS`: `study` (main = RQ1/RQ2 runs, harness = RQ5, strength = RQ3), the
arm (`variant`, `harness`, `builder`, `searcher`), the question (`benchmark`, `conversation`, `qid`, `question`)
and its outcomes (`f1`, `judge_correct`, `search_chars_read`, `search_dollars`). An optional `seed` column adds
replicate builds as an outer level.

Every row pairs two arms on the questions both answered (same benchmark, conversation, question number and
text). The unit is the question; conversations (and seeds, when there are any) are the outer level of the
paired bootstrap (tailmem.stats.bootstrap). Correctness is the judge's verdict when every paired question of
both arms has one, else the token F1 (offline: no judge runs). Search cost is dollars per question when a model
was billed, else the characters of tool output returned to the searcher (the offline cost proxy). The claims:

- a file-based store (verbatim, agent-curated) answers better than closed book ("> 0");
- organization does not buy better answers (paper 2 §5: "no measured agent converted organization itself into
  better answers"): a more organized store answers no better than its less organized counterpart by more than
  the tie margin ("< m");
- organization buys search economy (§4.2): organized stores cost less to search than the verbatim dump ("< 0");
- the harnesses tie (§4.5, Table 9): every pair of harnesses within the margin ("|d| < m"), and a closing row
  that combines the pairs;
- a stronger search model answers better (§4.3): each step up the searcher ladder at a fixed builder ("> 0").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pandas as pd

from tailmem.errors import DataError
from tailmem.fsmem.benchmarks import MAIN_BENCHMARK
from tailmem.report.claims import NOT_PLAYED, Claim, with_power
from tailmem.report.claims import rows as claim_rows
from tailmem.roles import BUILDER, SEARCHER
from tailmem.settings.stats import StatsGroup
from tailmem.stats.compare import COLUMNS, compare, missing
from tailmem.stats.paired_tests import sign_test
from tailmem.stats.verdict import claim_text
from tailmem.studies.fsmem import claim_specs

ANSWER_COLUMNS = (
    "study",
    "benchmark",
    "conversation",
    "variant",
    "harness",
    BUILDER,
    SEARCHER,
    "qid",
    "question",
    "f1",
    "judge_correct",
    "search_chars_read",
    "search_dollars",
)
CLAIM_COLUMNS = (
    "claim",
    "benchmark",
    "arm",
    "baseline",
    "metric",
    "unit",
    *with_power(COLUMNS),  # the design check's planned power beside the verdict (`tailmem.report.claims`)
    "sign_p_1s",
    "evidence",
    "paper",
)


@dataclass(frozen=True)
class Paired:
    """Two arms on the questions both answered: per-question differences a - b, their outer-level labels, the
    means of each arm over those questions and how many questions each arm answered in all."""

    metric: str
    diff: np.ndarray
    groups: np.ndarray
    mean_a: float
    mean_b: float
    answered_a: int
    answered_b: int

    @property
    def n(self) -> int:
        return int(self.diff.size)


def _key(df: pd.DataFrame) -> list[str]:
    return ["benchmark", "conversation", "qid"] + (["seed"] if "seed" in df.columns else [])


def select(answers: pd.DataFrame, **arm) -> pd.DataFrame:
    """The rows of one arm: every given column equal to its value."""
    mask = np.ones(len(answers), dtype=bool)
    for col, value in arm.items():
        mask &= (answers[col] == value).to_numpy()
    return answers[mask]


def score_metric(a: pd.DataFrame, b: pd.DataFrame) -> str:
    """`judge_correct` when both arms have a verdict on every question, else `f1`."""
    judged = all(len(x) and "judge_correct" in x and x["judge_correct"].notna().all() for x in (a, b))
    return "judge_correct" if judged else "f1"


def cost_metric(a: pd.DataFrame, b: pd.DataFrame) -> str:
    """`search_dollars` when a model was billed for either arm, else the offline proxy `search_chars_read`."""
    billed = any(len(x) and (x["search_dollars"].fillna(0) > 0).any() for x in (a, b))
    return "search_dollars" if billed else "search_chars_read"


def paired(a: pd.DataFrame, b: pd.DataFrame, metric: str) -> Paired:
    """Arms `a` and `b` on the questions both answered; a question whose text differs between them is an error
    (the two arms did not see the same question list)."""
    key = _key(a)
    both = a.merge(b, on=key, suffixes=("_a", "_b"))
    if len(both) and "question_a" in both and (both["question_a"] != both["question_b"]).any():
        bad = both[both["question_a"] != both["question_b"]].iloc[0]
        raise DataError(
            f"{bad['benchmark']} {bad['conversation']} question {bad['qid']}: the two arms were asked "
            f"different questions ({bad['question_a']!r} vs {bad['question_b']!r}); rerun both answer sets "
            "with the same fsmem.max_questions and fsmem.categories"
        )
    va, vb = both[f"{metric}_a"].astype(float).to_numpy(), both[f"{metric}_b"].astype(float).to_numpy()
    groups = both[[k for k in key if k not in ("benchmark", "qid")]].astype(str).agg("/".join, axis=1).to_numpy()
    nan = float("nan")
    return Paired(
        metric,
        va - vb,
        groups,
        float(va.mean()) if va.size else nan,
        float(vb.mean()) if vb.size else nan,
        len(a),
        len(b),
    )


def _one_sided_sign(diff: np.ndarray, direction: str, threshold: float) -> float:
    """Paper 2's test (D.1): the sign test about 0, one-sided in the claim's direction; nan for a claim with a
    margin, whose side the sign test about 0 does not test."""
    if direction == "within" or threshold != 0.0 or diff.size == 0:
        return float("nan")
    return sign_test(diff, alternative=direction).p


def _fmt(x: float) -> str:
    return f"{x:.4g}" if np.isfinite(x) else "-"


def _compared(c: Claim, a: pd.DataFrame, b: pd.DataFrame, labels: tuple[str, str], margin: float, settings) -> dict:
    """The row of claim `c` (all but `claim`) from arms `a` and `b` (their rows of the answers), shown as `labels`:
    paired on the questions both answered; a missing arm or no shared question is INCONCLUSIVE with the reason."""
    arm, baseline = labels
    metric = {"score": score_metric, "cost": cost_metric}.get(c.metric, lambda *_: c.metric)(a, b)
    direction, threshold = c.side, (margin if c.margin == "fsmem_tie" else c.threshold)
    head = {
        "claim": c.words,
        **c.columns,
        "arm": arm,
        "baseline": baseline,
        "metric": metric,
        "unit": c.unit,
        "paper": c.paper,
    }
    absent = [name for name, df in ((arm, a), (baseline, b)) if not len(df)]
    if absent:
        return (
            head
            | missing(claim_text(direction, threshold), "an arm was not run")
            | {"sign_p_1s": float("nan"), "evidence": f"{' and '.join(absent)}: no answers in this run"}
            | NOT_PLAYED
        )
    p = paired(a, b, metric)
    if p.n == 0:
        return (
            head
            | missing(claim_text(direction, threshold), "no shared question")
            | {"sign_p_1s": float("nan"), "evidence": "no question answered by both arms"}
        )
    # a judge's verdict is yes/no, an F1 a score in [0, 1], a cost neither
    outcome = {"judge_correct": "binary", "f1": "bounded"}.get(metric, "continuous")
    cmp = compare(p.diff, p.groups, direction=direction, threshold=threshold, settings=settings, outcome=outcome)
    others = "" if p.answered_a == p.answered_b == p.n else f"; answered {p.answered_a} and {p.answered_b}"
    shown = f"; margin {threshold:g} (stats.margins.fsmem_tie)" if threshold else ""
    evidence = (
        f"{metric} {arm} {_fmt(p.mean_a)} vs {baseline} {_fmt(p.mean_b)} over {p.n} questions answered "
        f"by both ({len(set(p.groups))} conversation(s){others}){shown}"
    )
    return head | cmp.row() | {"sign_p_1s": _one_sided_sign(p.diff, direction, threshold), "evidence": evidence}


def claims(
    answers: pd.DataFrame,
    settings: StatsGroup,
    margin: float,
    searcher_ladder: list[str] | None = None,
    planned: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """The `claims_fsmem` rows (`claim_specs.FSMEM_*`) from the per-question answers (`ANSWER_COLUMNS`); `margin`
    is the absolute tie margin of correctness (stats.margins.fsmem_tie); `searcher_ladder` orders the RQ3
    searchers weakest first (default: their order in `answers`); `planned`: the design check's planned powers
    (`tailmem.power.stated.planned_power` of the study's `design_rows.row`), beside the LoCoMo rows it plans."""
    lacking = [c for c in ANSWER_COLUMNS if c not in answers.columns]
    if lacking:
        raise DataError(f"answers frame: missing columns {lacking} (expected {list(ANSWER_COLUMNS)})")
    out: list[dict] = []
    main = select(answers, study="main")
    for bench in dict.fromkeys(main["benchmark"]):
        at = select(main, benchmark=bench)
        spec = [c.at(benchmark=bench) for c in claim_specs.FSMEM_MAIN]
        out += claim_rows(
            spec,
            lambda c: _compared(
                c, select(at, variant=c.arm), select(at, variant=c.baseline), (c.arm, c.baseline), margin, settings
            ),
            planned=planned if bench == MAIN_BENCHMARK else None,  # the plan counts LoCoMo's questions
        )
    rq5 = select(answers, study="harness")
    for (bench, variant), at in rq5.groupby(["benchmark", "variant"], sort=False):
        names = list(dict.fromkeys(at["harness"]))
        spec = [
            claim_specs.FSMEM_HARNESS_PAIR.filled(variant=variant, a=h1, b=h2).at(benchmark=bench)
            for h1, h2 in combinations(names, 2)
        ]
        if len(names) > 1:
            spec.append(claim_specs.FSMEM_HARNESS_ALL.filled(variant=variant).at(benchmark=bench))

        def harness(c: Claim, at=at, variant=variant) -> dict:
            a, b = select(at, harness=c.arm), select(at, harness=c.baseline)
            return _compared(c, a, b, (f"{variant} {c.arm}", f"{variant} {c.baseline}"), margin, settings)

        def every_pair(c: Claim, variant=variant, names=names) -> dict:
            pairs = len(names) * (len(names) - 1) // 2
            return {
                "arm": variant,
                "baseline": "",
                "metric": "",
                "evidence": f"combines: {pairs} harness pairs ({', '.join(names)})",
                "paper": c.paper,
            }

        out += claim_rows(spec, harness, every_pair)
    rq3 = select(answers, study="strength")
    for (bench, builder), at in rq3.groupby(["benchmark", BUILDER], sort=False):
        present = list(dict.fromkeys(at[SEARCHER]))
        ladder = [s for s in (searcher_ladder or present) if s in present]
        if len(ladder) < 2:
            out.append(
                {
                    "claim": "A stronger search model answers better",
                    "benchmark": bench,
                    "arm": builder,
                    "baseline": "",
                    "metric": "",
                    "unit": "question",
                    **missing("> 0", "one searcher"),
                    "sign_p_1s": float("nan"),
                    "evidence": f"builder {builder}: one searcher ({', '.join(present)}), no step up the ladder "
                    "(offline the strength grid is programmatic x programmatic)",
                    "paper": claim_specs.fsmem_searcher_paper("", ""),
                }
            )
            continue
        spec = [
            replace(
                claim_specs.FSMEM_STRENGTH.filled(weaker=weak, stronger=strong, builder=builder).at(benchmark=bench),
                paper=claim_specs.fsmem_searcher_paper(weak, strong),
            )
            for weak, strong in zip(ladder, ladder[1:])
        ]
        out += claim_rows(
            spec,
            lambda c, at=at: _compared(
                c, select(at, searcher=c.arm), select(at, searcher=c.baseline), (c.arm, c.baseline), margin, settings
            ),
        )
    df = pd.DataFrame(out, columns=list(CLAIM_COLUMNS))
    return df.astype({"n_units": "Int64", "n_seeds": "Int64"})  # counts stay counts beside a combined row


TITLE = "Paper 2's claims, checked on our LoCoMo and REALTALK answers"


def note(settings: StatsGroup, margin: float) -> str:
    """How the rows are decided, and what is not comparable."""
    return (
        "Unit = a question answered by both arms (same benchmark, conversation, question); conversations (and seeds, "
        f"when there are replicate builds) are the outer level of the {100 * settings.confidence:g}% paired "
        f"bootstrap ({settings.resamples} replicates, seed {settings.seed}; exact up to 15 questions, `ci_method`; "
        "docs/stats.md). estimate = mean of arm - "
        "baseline. Correctness = the judge's verdict when both arms were judged on every question, else token F1; "
        "search cost = dollars per question when a model was billed, else characters of tool output returned to "
        f"the searcher. Tie and non-superiority rows use margin {margin:g} (stats.margins.fsmem_tie; the widest "
        "spread paper 2 calls near-tied is 4.8 points, PersonaMem 128k 61.9-66.7%). p_held, p_not_held: one-sided "
        "sign-flip tests of the mean against the claim's threshold (for a tie, two one-sided tests against the "
        "margin); judged rows are paired yes/no outcomes, read by the exact test and interval of paired proportions "
        "(`ci_method`), and arms that never disagree are 'uninformative'; HELD / NOT HELD need the interval, the "
        f"matching p <= {settings.alpha:g} and at least "
        f"{settings.min_units} questions (stats.min_units), else INCONCLUSIVE with the `reason`. sign_p_1s: the "
        "one-sided sign test paper 2 reports (D.1), in the claim's direction, on rows without a margin (an extra). "
        "A row with an arm that was not run is INCONCLUSIVE with the reason in `evidence`. planned_power: the "
        "chance the design check planned a LoCoMo token-F1 row of a store against closed book to be decided at its "
        "stated effect (power.stated_effects.fsmem; table design_check); blank where no plan covers the row. "
        "Not comparable in level: offline numbers come from programmatic agents (llm=offline: every role) scored by "
        "token F1, while paper 2's numbers (`paper`) are model-judged accuracy (a gpt-5.4-mini judge on the answers "
        "of model agents); only the direction of a comparison carries over, never its size."
    )
