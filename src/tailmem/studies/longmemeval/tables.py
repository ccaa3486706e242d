"""LongMemEval tables: per question type, per arm overall, and CTMC against Graph Memory.

Scores are first taken per seed (one number per dataset, arm, seed and, where it applies, question type), then
reported as mean and sample sd over seeds (`x`, `x_sd`; the Markdown renders mean ± sd). Task-averaged accuracy
is the mean over question types of each type's accuracy (abstention questions stay in their type); overall is
the mean over questions; abstention is the mean over `_abs` questions only.

Judged accuracy (`judge_*`) reads each judge reply as LongMemEval's evaluate_qa.py does ("yes" anywhere in the
lower-cased reply); `judge_*_ours` reads the first verdict word and leaves unparsed replies out, and
`judge_unparsed` counts those replies. Session retrieval: `recall_any@k`, `recall_all@k`, `ndcg_any@k` are
LongMemEval's, averaged over its question filter (no abstention, some user turn marked has_answer;
`retrieval_questions` counts them); `ours_recall@k` is our fraction of answer sessions in the top k over every
question (tailmem.haystack.retrieval).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.data.longmemeval import QUESTION_TYPES
from tailmem.haystack.arms import ctmc_name
from tailmem.haystack.reduction import ArmResult, accuracy_differs_nowhere, first_failure, measured, reached_failure
from tailmem.memory.arm_names import ArmName
from tailmem.metrics.answer_length import mean_answer_tokens
from tailmem.report.claims import Claim, with_power
from tailmem.report.claims import rows as claim_rows
from tailmem.report.table_spec import specs, text
from tailmem.settings.stats import StatsGroup
from tailmem.stats.compare import COLUMNS, Comparison, missing
from tailmem.stats.verdict import HELD, INCONCLUSIVE, NOT_HELD, claim_text, combine
from tailmem.studies.longmemeval import claim_specs

PAPER_TOKEN_REDUCTION_PCT = claim_specs.LONGMEMEVAL_TOKEN_REDUCTION_PCT
FILE = "longmemeval/longmemeval.yaml"  # these tables' words and column lists (this study's data folder)
SPECS = specs(FILE)
JUDGE_NOTE = text(FILE, "judge")  # a note, not the role
ARM_ORDER = ("graph_memory", "ctmc", "flat_retrieval", "full_history")


def _arm_key(arm: str) -> tuple:
    parsed = ArmName.parse(arm)
    base, ratio = parsed.controller, -(parsed.ratio or 0.0)
    return (ARM_ORDER.index(base) if base in ARM_ORDER else len(ARM_ORDER), ratio, arm)


def _over_seeds(per_seed: pd.DataFrame, by: list[str], cols: list[str]) -> pd.DataFrame:
    g = per_seed.groupby(by, sort=False)
    out = g[cols].mean()
    sd = g[cols].std(ddof=1).add_suffix("_sd")
    n = g.size().rename("seeds")
    df = pd.concat([out, sd], axis=1)
    df = df[[c for pair in zip(cols, [f"{c}_sd" for c in cols]) for c in pair]].join(n).reset_index()
    return df


def _judged(rows: pd.DataFrame) -> bool:
    return "judge_correct" in rows and rows.judge_correct.notna().any()


def _sort(df: pd.DataFrame, extra: list[str] | None = None) -> pd.DataFrame:
    keys = df.arm.map(_arm_key)
    df = df.assign(_k=keys)
    by = ["dataset", "_k"] + (extra or [])
    if extra and "question_type" in extra:
        df = df.assign(_t=df.question_type.map({t: i for i, t in enumerate(QUESTION_TYPES)}))
        by = ["dataset", "_t", "_k"]
    return df.sort_values(by, kind="stable").drop(columns=[c for c in ("_k", "_t") if c in df]).reset_index(drop=True)


def by_type(rows: pd.DataFrame) -> pd.DataFrame:
    """Figure 8's numbers: prompt tokens per query, accuracy and coverage per question type and arm."""
    cols = {
        "prompt_tokens": ("prompt_tokens", "mean"),
        "accuracy": ("correct", "mean"),
        "coverage": ("coverage", "mean"),
        "questions": ("qid", "nunique"),
    }
    if _judged(rows):
        cols["judge_accuracy"] = ("judge_correct", "mean")
        if "judge_correct_ours" in rows:
            rows = rows.assign(_unparsed=rows.judge_correct_ours.isna() & rows.judge_correct.notna())
            cols["judge_accuracy_ours"] = ("judge_correct_ours", "mean")
            cols["judge_unparsed"] = ("_unparsed", "sum")
    per_seed = rows.groupby(["dataset", "arm", "question_type", "seed"], sort=False).agg(**cols).reset_index()
    metrics = [c for c in cols if c != "questions"]
    df = _over_seeds(per_seed, ["dataset", "arm", "question_type"], metrics)
    df = df.merge(per_seed.groupby(["dataset", "arm", "question_type"]).questions.first().reset_index())
    return SPECS[outputs.LONGMEMEVAL_BY_TYPE].check(_sort(df, ["question_type"]))


def per_seed_summary(rows: pd.DataFrame, recall_ks) -> pd.DataFrame:
    """One row per dataset, arm and seed: tokens, task-averaged / overall / abstention accuracy, coverage, recall."""
    out = []
    judged = _judged(rows)
    for (dataset, arm, seed), g in rows.groupby(["dataset", "arm", "seed"], sort=False):
        r = {
            "dataset": dataset,
            "arm": arm,
            "label": g.label.iloc[0],
            "seed": seed,
            "questions": g.qid.nunique(),
            "prompt_tokens": g.prompt_tokens.mean(),
            "memory_tokens": g.memory_tokens.mean(),
            "task_avg_accuracy": g.groupby("question_type").correct.mean().mean(),
            "overall_accuracy": g.correct.mean(),
            "answer_tokens": mean_answer_tokens(g.answer) if "answer" in g else np.nan,  # lenient judges reward length
            "abstention_accuracy": g[g.abstention].correct.mean() if g.abstention.any() else np.nan,
            "coverage": g.coverage.mean(),
            "answer_sessions_placed": g.answer_sessions_placed.mean(),
        }
        if "answer_context_overflow" in g:  # a run setting: answers lost to the model's context window
            r["context_overflows"] = int(g.answer_context_overflow.fillna(False).astype(bool).sum())
        if "retrieval_scored" in g:
            scored = g[g.retrieval_scored.astype(bool)]
            r["retrieval_questions"] = scored.qid.nunique()
            for k in recall_ks:
                for m in ("recall_any", "recall_all", "ndcg_any"):
                    r[f"{m}@{k}"] = scored[f"{m}@{k}"].mean() if len(scored) else np.nan
        r |= {f"ours_recall@{k}": g[f"recall@{k}"].mean() for k in recall_ks}
        if judged:
            r["judge_task_avg_accuracy"] = g.groupby("question_type").judge_correct.mean().mean()
            r["judge_overall_accuracy"] = g.judge_correct.mean()
            if "judge_correct_ours" in g:
                r["judge_overall_accuracy_ours"] = g.judge_correct_ours.mean()  # unparsed replies left out
                r["judge_unparsed"] = int((g.judge_correct_ours.isna() & g.judge_correct.notna()).sum())
        out.append(r)
    return pd.DataFrame(out)


def summary(rows: pd.DataFrame, recall_ks) -> pd.DataFrame:
    per_seed = per_seed_summary(rows, recall_ks)
    metrics = [c for c in per_seed.columns if c not in ("dataset", "arm", "label", "seed", "questions")]
    df = _over_seeds(per_seed, ["dataset", "arm", "label", "questions"], metrics)
    return SPECS[outputs.LONGMEMEVAL_SUMMARY].check(_sort(df))


def ctmc_vs_graph(rows: pd.DataFrame, recall_ks) -> pd.DataFrame:
    """Per CTMC ratio: prompt-token reduction vs Graph Memory (%), and accuracy and coverage changes (CTMC - GM)."""
    per_seed = per_seed_summary(rows, recall_ks).set_index(["dataset", "seed", "arm"])
    out = []
    for (dataset, seed, arm), r in per_seed.iterrows():
        if ArmName.parse(arm).ratio is None or (dataset, seed, "graph_memory") not in per_seed.index:
            continue
        gm = per_seed.loc[(dataset, seed, "graph_memory")]
        out.append(
            {
                "dataset": dataset,
                "arm": arm,
                "seed": seed,
                "token_reduction_pct": 100.0 * (1.0 - r.prompt_tokens / gm.prompt_tokens),
                "graph_memory_tokens": gm.prompt_tokens,
                "ctmc_tokens": r.prompt_tokens,
                "graph_memory_accuracy": gm.overall_accuracy,
                "ctmc_accuracy": r.overall_accuracy,
                "accuracy_change": r.overall_accuracy - gm.overall_accuracy,
                "task_avg_accuracy_change": r.task_avg_accuracy - gm.task_avg_accuracy,
                "graph_memory_coverage": gm.coverage,
                "ctmc_coverage": r.coverage,
                "coverage_change": r.coverage - gm.coverage,
            }
        )
    if not out:
        return pd.DataFrame()
    per = pd.DataFrame(out)
    metrics = [c for c in per.columns if c not in ("dataset", "arm", "seed")]
    df = _over_seeds(per, ["dataset", "arm"], metrics)
    df["token_reduction_pct_paper"] = PAPER_TOKEN_REDUCTION_PCT
    return SPECS[outputs.LONGMEMEVAL_CTMC_VS_GRAPH].check(_sort(df))


def reduction(results: list[ArmResult]) -> pd.DataFrame:
    """One row per dataset and CTMC budget: token reduction, accuracy and coverage changes with their intervals,
    the non-inferiority verdicts, the arm's step in the fixed sequence, which arm is the measured reduction, and
    whether the dataset's sweep reached a failing budget at all (if not, the measured reduction is a lower bound)."""
    out = []
    for r in results:
        rec = {
            "dataset": r.dataset,
            "arm": r.arm,
            "ratio": r.ratio,
            "measured": r.measured,
            "step": r.step,
            "reached_failure": reached_failure(results, r.dataset),
        }
        for name, cmp in (
            ("token_reduction_pct", r.tokens),
            ("accuracy_change", r.accuracy),
            ("coverage_change", r.coverage),
        ):
            i = cmp.interval
            rec |= {name: i.estimate, f"{name}_ci_low": i.low, f"{name}_ci_high": i.high}
        rec |= {
            "accuracy_noninferior": r.accuracy.verdict,
            "coverage_noninferior": r.coverage.verdict,
            "questions": r.accuracy.interval.n_units,
            "seeds": r.seeds,
            "token_reduction_pct_paper": PAPER_TOKEN_REDUCTION_PCT,
        }
        out.append(rec)
    df = pd.DataFrame(out)
    return SPECS[outputs.LONGMEMEVAL_REDUCTION].check(df) if out else df


def _claim(c: Claim, dataset: str, arm: str, cmp, evidence: str) -> dict:
    """A row of claim `c` at `arm` from its comparison `cmp` (None: the shared columns of a row without data)."""
    row = cmp.row() if cmp is not None else missing(reason="")
    return {
        "claim": c.words,
        "dataset": dataset,
        "arm": arm,
        "unit": c.unit,
        **row,
        "evidence": evidence,
        "paper": c.paper,
    }


def _fmt(cmp) -> str:
    i = cmp.interval
    return f"{i.estimate:+.3f} [{i.low:+.3f}, {i.high:+.3f}]"


CONTEXT_CLAIM = next(c.words for c in claim_specs.LONGMEMEVAL if c.key == "context")


def _context_row(c: Claim, dataset: str, check: Comparison | None) -> dict:
    """The check that the reader uses its context; its reason says when it does not."""
    if check is None:
        return _claim(c, dataset, c.arm, None, c.evidence.format(check="")) | {
            "side": claim_text(c.side, c.threshold),
            "reason": "check not run (longmemeval.context_check = 0)",
        }
    row = _claim(c, dataset, c.arm, check, c.evidence.format(check=f": {_fmt(check)}"))
    if row["verdict"] != HELD:
        shown = (
            "does not respond"
            if row["verdict"] == NOT_HELD or not check.interval.estimate > 0
            else "is not shown to respond"
        )
        row["reason"] = "; ".join(filter(None, (row["reason"], f"the reader {shown} to its context")))
    return row


def _uninformative(acc: dict, context: dict, results: list[ArmResult], dataset: str) -> dict:
    """Non-inferiority of an accuracy that no budget of the sweep moved says nothing about where accuracy is lost:
    INCONCLUSIVE, "uninformative", instead of HELD. The reason adds what the context check found."""
    if acc["verdict"] != HELD or not accuracy_differs_nowhere(results, dataset):
        return acc
    last = [r.arm for r in results if r.dataset == dataset][-1]
    if context["verdict"] == HELD:
        check = "the reader does respond to removing all the gold evidence (context check), not to any budget"
    elif context["reason"].startswith("check not run"):
        check = "no context check ran"
    else:
        check = context["reason"].split("; ")[-1]
    return acc | {
        "verdict": INCONCLUSIVE,
        "reason": f"uninformative: accuracy differs from Graph Memory's at no "
        f"budget of the sweep (down to {last}); {check}",
    }


def _sweep_text(results: list[ArmResult], dataset: str, best: ArmResult) -> str:
    """The measured reduction, or its lower bound when no budget of the sweep failed."""
    i = best.tokens.interval
    pct = f"{i.estimate:.2f}% [{i.low:.2f}, {i.high:.2f}] at {best.arm}"
    failed = first_failure(results, dataset)
    if failed is None:
        return (
            f"at least {pct}, the sweep's last level: the sweep did not reach a failing level, so the reduction "
            "is a lower bound (extend longmemeval.ctmc_ratios down)"
        )
    return f"measured {pct}, the last budget before the first failing level {failed.arm}"


def claims(
    results: list[ArmResult],
    margin: float,
    context: dict[str, Comparison | None] | None = None,
    planned: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Paper 1's LongMemEval claim per dataset, at the measured budget: accuracy and coverage non-inferior, fewer
    tokens, and at least paper 1's 24.48% fewer; the reader's response to its context (`context`: per dataset,
    `reduction.context_response`); the last row combines the parts that make the paper's sentence. `planned`: the
    design check's planned powers (`tailmem.power.stated.planned_power` of the study's `design_rows.row`), beside
    the rows it plans."""
    context = context or {}
    out = []
    for dataset in dict.fromkeys(r.dataset for r in results):
        arms = [r for r in results if r.dataset == dataset]
        best = measured(results, dataset)
        shown = best or arms[0]  # without a measured budget, the largest budget's comparisons say why
        head = (
            f"measured budget {best.arm}"
            if best
            else f"no budget passed; the largest ({shown.arm}) has accuracy {_fmt(shown.accuracy)}, coverage "
            f"{_fmt(shown.coverage)}"
        )
        spec = [c.filled(margin=margin).at(dataset=dataset) for c in claim_specs.LONGMEMEVAL]
        check = _context_row(next(c for c in spec if c.key == "context"), dataset, context.get(dataset))

        def compared(c: Claim) -> dict:
            if c.key == "context":
                return check
            if c.metric in ("accuracy", "coverage"):  # non-inferiority at the measured (else the largest) budget
                cmp = getattr(shown, c.metric)
                row = _claim(c, dataset, shown.arm, cmp, c.evidence.format(head=head, measured=_fmt(cmp)))
                return _uninformative(row, check, results, dataset) if c.metric == "accuracy" else row
            if best is None:  # no budget passed: the token rows close with their parts
                closed = (
                    NOT_HELD if combine([shown.accuracy.verdict, shown.coverage.verdict]) == NOT_HELD else INCONCLUSIVE
                )
                side = claim_text(c.side, c.threshold)
                return _claim(c, dataset, "", None, head) | {
                    "side": side,
                    "verdict": closed,
                    "reason": "no budget passed",
                }
            cmp = best.tokens.against(c.side, c.threshold) if c.threshold else best.tokens
            return _claim(c, dataset, best.arm, cmp, c.evidence.format(sweep=_sweep_text(results, dataset, best)))

        def combined(c: Claim) -> dict:
            return _claim(c, dataset, shown.arm if best else "", None, c.evidence)

        out += claim_rows(spec, compared, combined, planned)
    cols = [*SPECS[outputs.CLAIMS_LONGMEMEVAL].columns, *with_power(COLUMNS), "evidence", "paper"]
    return pd.DataFrame(out, columns=cols)


REDUCTION_TITLE = SPECS[outputs.LONGMEMEVAL_REDUCTION].title_text()
CLAIMS_TITLE = SPECS[outputs.CLAIMS_LONGMEMEVAL].title_text()


def reduction_note(margin: float, settings: StatsGroup) -> str:
    """What the reduction and claims tables show, how they are decided and what is not comparable."""
    return text(
        FILE,
        "measured",
        confidence_pct=100 * settings.confidence,
        resamples=settings.resamples,
        seed=settings.seed,
        margin=margin,
        alpha=settings.alpha,
    )


def common_note(**fields) -> str:
    """The sentences every table and Figure 8 share (words.common); `turn_words` None: turns kept whole."""
    turn_words = fields.pop("turn_words")
    return text(
        FILE, "common", turns="" if turn_words is None else text(FILE, "turns", turn_words=turn_words), **fields
    )


def note(stem: str, common: str, measured: str = "", judges_note: str | None = None) -> str:
    """Table `stem`'s note: `common` (`common_note`), then `measured` (`reduction_note`) where the spec names it,
    then the judges' note when judges ran."""
    judges = "" if judges_note is None else text(FILE, "judges", judges_note=judges_note)
    return SPECS[stem].note_text(common=common, measured=measured, judges=judges)


def all_tables(rows: pd.DataFrame, recall_ks, primary_ratio: float) -> dict[str, tuple[pd.DataFrame, str]]:
    """The descriptive tables (one note for all); the reduction and claims tables are built by `reduction` and
    `claims` with their own note."""
    frames = {
        outputs.LONGMEMEVAL_BY_TYPE: by_type(rows),
        outputs.LONGMEMEVAL_SUMMARY: summary(rows, recall_ks),
        outputs.LONGMEMEVAL_CTMC_VS_GRAPH: ctmc_vs_graph(rows, recall_ks),
    }
    shown = titles(primary_ratio)
    return {stem: (df, shown[stem]) for stem, df in frames.items()}


def titles(primary_ratio: float) -> dict[str, str]:
    """Table stem -> title, every LongMemEval table's (the spec's words, paper 1's reduction, the primary arm)."""
    fields = {
        "judge": JUDGE_NOTE,  # a title's field, not the role
        "paper_pct": PAPER_TOKEN_REDUCTION_PCT,
        "primary": ctmc_name(primary_ratio),
    }
    return {stem: spec.title_text(**fields) for stem, spec in SPECS.items()}
