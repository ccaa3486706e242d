"""Stage judge_sensitivity: the answers the fsmem study and LongMemEval already wrote, scored again under every
judge of `judges.names` (tailmem.judges.panel), and how much the judges agree (table `judge_sensitivity`).

No answer is given again: the stage reads the fsmem study's answers.json files (main, harness and strength runs:
every answer claims_fsmem reads, LoCoMo conv-50 among them) and LongMemEval's rows.parquet (every dataset and
seed). Each judge is played by the judge role (`llm.roles.judge`): the configured model, its calls through the call
cache (so a verdict an answer stage already paid for is read back, not bought again), or offline each judge's token
rule. Every verdict goes to `{results}/tables/judge_sensitivity.verdicts.parquet`, which the claims stages read to
recompute their judged claims under each judge (tailmem.judges.claims).

Per benchmark the table gives, per judge: accuracy with its interval (`tailmem.stats.bootstrap.mean_interval`,
clustered by question, since several arms answer each one), unreadable replies, agreement and Cohen's kappa with the
official F1 at `judges.f1_threshold`; per pair of judges: agreement and Cohen's kappa; over all judges:
Krippendorff's alpha (nominal). The model calls and seconds the stage itself paid are in the judge rows.
"""

from __future__ import annotations

import logging
from itertools import combinations

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.errors import DataError
from tailmem.judges import agreement, panel
from tailmem.judges.verdicts import fsmem_answers_key, lme_answers_key, verdicts_path
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemAnswers
from tailmem.records.judges import JudgeVerdicts
from tailmem.roles import JUDGE
from tailmem.stage import typed_stage

log = logging.getLogger("tailmem")
F1_JUDGE = "official_f1"  # the pseudo-judge F1 >= threshold, beside the judges
VERDICT_KEYS = ["source", "benchmark", "answers", "qid"]  # one answer; `answers` = the answer set it belongs to


# -- the answers -------------------------------------------------------------------------------------------------
def fsmem_answers(cfg) -> pd.DataFrame:
    """Every answer of the fsmem study runs that claims_fsmem reads (each answer set once)."""
    from tailmem.fsmem import run_list
    from tailmem.metrics.locomo_f1 import locomo_f1

    recs, seen = [], set()
    composed = cfg.composed
    for run in run_list.main_runs(composed) + run_list.harness_runs(composed) + run_list.strength_runs(composed):
        if run.answers_file in seen:
            continue
        seen.add(run.answers_file)
        if not run.answers_file.exists():
            raise DataError(f"{run.answers_file}: missing; run its Snakemake rule first (studies/fsmem/rules.smk)")
        key = fsmem_answers_key(cfg.results_dir, run.answers_file)
        for i, r in enumerate(FsmemAnswers.read(run.answers_file).rows):
            lacking = [c for c in ("question", "gold", "answer", "category") if c not in r]
            if lacking:
                raise DataError(f"{run.answers_file}: row {i} lacks {lacking}; re-run its answers (rule fsmem_answers)")
            item = panel.locomo_item(r["question"], r["gold"], r["answer"], r["qid"], r["category"])
            recs.append(
                {
                    "source": "fsmem",
                    "benchmark": run.benchmark,
                    "answers": key,
                    "qid": str(r["qid"]),
                    "unit": f"{run.benchmark}/{run.conversation}/{r['qid']}",
                    "item": item,
                    "f1": float(r["f1"] if "f1" in r else locomo_f1(r["answer"], r["gold"], int(r["category"]))),
                }
            )
    return pd.DataFrame(recs)


def lme_answers(cfg) -> pd.DataFrame:
    """Every LongMemEval row of every dataset and seed (the evidence-removed check too: its claim is judged)."""
    from tailmem.haystack.rows import load_rows
    from tailmem.metrics.locomo_f1 import token_f1

    lme = cfg.longmemeval
    rows = load_rows(cfg.composed, list(lme.datasets), list(lme.seeds))
    recs = []
    for r in rows.itertuples(index=False):
        item = panel.Item(str(r.question), str(r.gold), str(r.answer or ""), str(r.qid), str(r.question_type))
        recs.append(
            {
                "source": "longmemeval",
                "benchmark": f"longmemeval {r.dataset}",
                "answers": lme_answers_key(r.dataset, r.seed, r.arm),
                "qid": str(r.qid),
                "unit": f"{r.dataset}/{r.qid}",
                "item": item,
                "f1": token_f1(item.answer, item.gold),
            }
        )
    return pd.DataFrame(recs)


# -- judging -----------------------------------------------------------------------------------------------------
def judge_answers(answers: pd.DataFrame, judges: list[str], client) -> pd.DataFrame:
    """One row per answer and judge: the verdict (1/0, NaN unreadable), the reply, its seconds, cache hit."""
    frames = []
    items = list(answers["item"])
    for judge in judges:
        verdicts = panel.judge_all(client, judge, items)
        frames.append(
            answers.drop(columns="item").assign(
                judge=judge,
                correct=[np.nan if v.correct is None else v.correct for v in verdicts],
                reply=[v.reply for v in verdicts],
                seconds=[v.seconds for v in verdicts],
                from_cache=[v.from_cache for v in verdicts],
                kind=[it.kind for it in items],
            )
        )
    return pd.concat(frames, ignore_index=True)


def _labels(verdicts: pd.DataFrame, judges: list[str]) -> pd.DataFrame:
    """answers x judges matrix of labels (NaN = unreadable)."""
    twice = verdicts[verdicts.duplicated([*VERDICT_KEYS, JUDGE])]
    if len(twice):
        raise DataError(
            f"judge verdicts: answer {twice.iloc[0][VERDICT_KEYS].to_dict()} judged twice by "
            f"{twice.iloc[0][JUDGE]!r}; two answer sets share a key"
        )
    wide = verdicts.pivot(index=VERDICT_KEYS, columns=JUDGE, values="correct").reindex(columns=judges)
    info = verdicts.drop_duplicates(VERDICT_KEYS).set_index(VERDICT_KEYS)[["unit", "f1"]]
    return info.join(wide).reset_index()


def sensitivity_table(verdicts: pd.DataFrame, judges: list[str], threshold: float, st, model: str) -> pd.DataFrame:
    """The `judge_sensitivity` rows of every benchmark in `verdicts` (module docstring)."""
    from tailmem.stats.bootstrap import mean_interval

    out = []
    for bench, v in verdicts.groupby("benchmark", sort=False):
        wide = _labels(v, judges)
        f1_pass = (wide["f1"].to_numpy(float) >= threshold).astype(float)
        units = wide["unit"].to_numpy()
        base = {"benchmark": bench, "answers": len(wide), "questions": int(pd.unique(units).size)}
        for judge in [*judges, F1_JUDGE]:
            y = f1_pass if judge == F1_JUDGE else wide[judge].to_numpy(float)
            ok = np.isfinite(y)
            ci = mean_interval(y[ok], units[ok], confidence=st.confidence, resamples=st.resamples, seed=st.seed)
            row = base | {
                "row": JUDGE,
                JUDGE: judge,
                "judge_model": "" if judge == F1_JUDGE else model,
                "n": int(ok.sum()),
                "accuracy": ci.estimate,
                "ci_low": ci.low,
                "ci_high": ci.high,
                "unreadable": int((~ok).sum()),
            }
            if judge != F1_JUDGE:
                calls = v[v[JUDGE] == judge]
                paid = calls[calls["from_cache"].eq(False)] if calls["from_cache"].notna().any() else calls.iloc[:0]
                row |= {
                    "f1_agreement": agreement.agreement(y, f1_pass),
                    "f1_kappa": agreement.cohen_kappa(y, f1_pass),
                    "new_model_calls": len(paid),
                    "new_model_seconds": float(paid["seconds"].fillna(0).sum()),
                }
            out.append(row)
        for a, b in combinations(judges, 2):
            ya, yb = wide[a].to_numpy(float), wide[b].to_numpy(float)
            both = np.isfinite(ya) & np.isfinite(yb)
            out.append(
                base
                | {
                    "row": "pair",
                    JUDGE: f"{a} vs {b}",
                    "judge_model": model,
                    "n": int(both.sum()),
                    "agreement": agreement.agreement(ya, yb),
                    "cohen_kappa": agreement.cohen_kappa(ya, yb),
                }
            )
        matrix = wide[judges].to_numpy(float).T
        out.append(
            base
            | {
                "row": "all judges",
                JUDGE: ", ".join(judges),
                "judge_model": model,
                "n": int(np.isfinite(matrix).any(axis=0).sum()),
                "krippendorff_alpha": agreement.krippendorff_alpha(matrix),
            }
        )
    cols = [
        "benchmark",
        "row",
        JUDGE,
        "judge_model",
        "answers",
        "questions",
        "n",
        "accuracy",
        "ci_low",
        "ci_high",
        "unreadable",
        "f1_agreement",
        "f1_kappa",
        "agreement",
        "cohen_kappa",
        "krippendorff_alpha",
        "new_model_calls",
        "new_model_seconds",
    ]
    return pd.DataFrame(out).reindex(columns=cols)


TITLE = "Judge sensitivity: the same answers under several judges, and how much they agree"


def note(judges: list[str], threshold: float, st, offline: bool) -> str:
    who = (
        "Offline: the judge role is the programmatic judge, so each judge is its stated token rule "
        "(tailmem/judges/panel.py: paper = strict, every gold word and a concise answer; per_type = LongMemEval's "
        "rules by question type; gist = half the gold words at any length), not a model; the numbers show the "
        "machinery and how much three honest rules disagree, not a model judge's reliability."
        if offline
        else "Each judge is the judge role's model (judge_model) with that judge's prompt; a verdict an answer stage "
        "already bought was read back from the call cache (new_model_calls / new_model_seconds: what this stage "
        "paid)."
    )
    return (
        f"The same answers (fsmem study: every answer claims_fsmem reads; LongMemEval: every dataset, seed and arm) "
        f"judged by {judges}: paper = paper 2's correctness judge (configs/prompts/fsmem/judge_correctness.md), "
        "per_type = LongMemEval's per-type judge (configs/prompts/longmemeval/judge_*.md; LoCoMo's temporal "
        "category gets the temporal rules), gist = a lenient judge (configs/prompts/judges/judge_gist.md). "
        f"Row `judge`: accuracy over the answers it could read, {100 * st.confidence:g}% bootstrap interval "
        f"({st.resamples} replicates, seed {st.seed}) clustered by question; f1_agreement / f1_kappa = agreement "
        f"and Cohen's kappa with `{F1_JUDGE}` (LoCoMo's official token F1 >= {threshold:g}, "
        "tailmem.metrics.locomo_f1; LongMemEval answers get the plain token F1). Row `pair`: share of answers two "
        "judges label alike and Cohen's kappa. Row `all judges`: Krippendorff's alpha (nominal, the "
        "`krippendorff` package; unreadable replies missing). Kappa and alpha are empty (nan) where every label "
        f"is the same (0/0). {who}"
    )


@typed_stage("judge_sensitivity")
def run(cfg) -> None:
    from tailmem.fsmem.agents.models import client_for, label
    from tailmem.report.table_io import write_table
    from tailmem.stats.group import settings

    judges = panel.check_judges(cfg.judges.names)
    threshold = float(cfg.judges.f1_threshold)
    st = settings(cfg)
    answers = pd.concat([fsmem_answers(cfg), lme_answers(cfg)], ignore_index=True)
    if answers.empty:
        raise DataError("judge_sensitivity: no answers to judge (fsmem.study and longmemeval produced none)")
    client = client_for(cfg, JUDGE, "judge_sensitivity")
    verdicts = judge_answers(answers, judges, client)
    path = verdicts_path(cfg.results_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    JudgeVerdicts(verdicts).write(path)
    model = label(client, JUDGE)
    df = sensitivity_table(verdicts, judges, threshold, st, model)
    out = out_dir(cfg, tables_dir(cfg))
    stem = outputs.JUDGE_SENSITIVITY
    write_table(out, stem, df.round(4), TITLE, note(judges, threshold, st, client is None), table_footer(cfg))
    save_provenance(out / f"{stem}.provenance", cfg, agent=stem, judge=model)
    for r in df[df["row"] == "all judges"].itertuples():
        log.info(
            "%s: %s answers, Krippendorff's alpha %.3f over %s", r.benchmark, r.answers, r.krippendorff_alpha, judges
        )
