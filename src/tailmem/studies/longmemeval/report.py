"""Stage `longmemeval_report`: paper 1 Figure 8, the LongMemEval tables and claims_longmemeval, over the datasets
and seeds the `longmemeval` stage ran (`studies/longmemeval/run.py`).

Artifacts: {results}/tables/longmemeval_*.{csv,md} and claims_longmemeval (the measured token reduction:
tailmem.haystack.reduction); {figures}/fig8_longmemeval.{png,pdf}.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.haystack.arms import NO_EVIDENCE
from tailmem.haystack.reduction import context_response, evaluate, reached_failure
from tailmem.haystack.rows import load_rows
from tailmem.judges.verdicts import lme_answers_key, read_verdicts, verdict_map
from tailmem.paths import out_dir, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.roles import JUDGE
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import typed_stage
from tailmem.stats.group import settings as stats_settings

log = logging.getLogger(__name__)


def report_note(cfg: StageSettings, answerers: str) -> str:
    """The sentences every LongMemEval table and Figure 8 share, from studies/longmemeval/data/longmemeval.yaml."""
    from tailmem.studies.longmemeval import tables as longmemeval_tables

    lme = cfg.longmemeval
    return longmemeval_tables.common_note(
        datasets=list(lme.datasets),
        max_per_type=lme.max_per_type,
        seeds=list(lme.seeds),
        answerers=answerers,
        candidates=lme.candidates,
        graph_budget=lme.graph_budget,
        tau=lme.tau,
        encoding=lme.encoding,
        turn_words=lme.turn_words,
    )


@typed_stage("longmemeval_report")
def report(cfg: StageSettings) -> None:
    from tailmem.judges import claims as judge_claims
    from tailmem.power.stated import planned_power
    from tailmem.report.table_io import write_table
    from tailmem.studies.longmemeval import design_rows
    from tailmem.studies.longmemeval import figures as longmemeval_figures
    from tailmem.studies.longmemeval import tables as longmemeval_tables

    lme = cfg.longmemeval
    every = load_rows(cfg.composed, list(lme.datasets), list(lme.seeds))
    rows = every[every.arm != NO_EVIDENCE]  # the context check is not an arm of the tables or the figure
    out = out_dir(cfg, tables_dir(cfg))
    answerers = ", ".join(sorted(rows.answerer.unique()))
    note = report_note(cfg, answerers)
    tables = longmemeval_tables.all_tables(rows, list(lme.recall_ks), float(lme.primary_ratio))
    footer = table_footer(cfg)
    for stem, (df, title) in tables.items():
        write_table(out, stem, df, title, longmemeval_tables.note(stem, note), footer)
        log.info("wrote %s", out / f"{stem}.md")
    margin = float(lme.noninferiority_margin)
    st = stats_settings(cfg)
    results = evaluate(rows, margin, st)
    context = {d: context_response(every[every.dataset == d], st) for d in dict.fromkeys(every.dataset)}
    measured = longmemeval_tables.reduction_note(margin, st)
    write_table(
        out,
        outputs.LONGMEMEVAL_REDUCTION,
        longmemeval_tables.reduction(results),
        longmemeval_tables.REDUCTION_TITLE,
        longmemeval_tables.note(outputs.LONGMEMEVAL_REDUCTION, note, measured),
        footer,
    )
    planned = {  # as the design check plans them
        k: v for r in design_rows.rows(cfg, st.min_units, st.alpha) for k, v in planned_power(r).items()
    }
    claims = longmemeval_tables.claims(results, margin, context, planned)
    judged = read_verdicts(cfg) if cfg.judges.claims else None
    if judged is not None:  # the same claims under each judge's verdicts, to show which depend on the judge
        claims = judge_claims.with_sensitivity(claims, lme_claims_by_judge(every, judged, margin, st))
    write_table(
        out,
        outputs.CLAIMS_LONGMEMEVAL,
        claims,
        longmemeval_tables.CLAIMS_TITLE,
        longmemeval_tables.note(
            outputs.CLAIMS_LONGMEMEVAL, note, measured, judge_claims.NOTE if judged is not None else None
        ),
        footer,
    )
    for r in results:
        if r.measured:
            i = r.tokens.interval
            bound = "measured" if reached_failure(results, r.dataset) else "at least (no budget failed)"
            log.info("%s: reduction %s %.2f%% [%.2f, %.2f] at %s", r.dataset, bound, i.estimate, i.low, i.high, r.arm)
    fig_dir = Path(cfg.figures_dir)
    longmemeval_figures.figure8(rows, fig_dir / outputs.LONGMEMEVAL_FIGURE, float(lme.primary_ratio), note)
    save_provenance(out, cfg, prefix="longmemeval.", agent=answerers)


def lme_claims_by_judge(every: pd.DataFrame, verdicts: pd.DataFrame, margin: float, st) -> dict[str, pd.DataFrame]:
    """claims_longmemeval recomputed with accuracy = each judge's verdict on the same rows (the evidence-removed
    check included), by `longmemeval.reduction` and this study's `tables.claims` themselves."""
    from tailmem.studies.longmemeval import tables as longmemeval_tables

    keys = list(
        zip(
            (lme_answers_key(d, s, a) for d, s, a in zip(every["dataset"], every["seed"], every["arm"])),
            every["qid"].astype(str),
        )
    )
    out = {}
    for judge in dict.fromkeys(verdicts[JUDGE]):
        marks = verdict_map(verdicts[verdicts["source"] == "longmemeval"], judge)
        col = f"judge_{judge}"
        rows = every.assign(**{col: [marks.get(k, float("nan")) for k in keys]})
        results = evaluate(rows[rows.arm != NO_EVIDENCE], margin, st, accuracy=col)
        context = {d: context_response(rows[rows.dataset == d], st, accuracy=col) for d in dict.fromkeys(rows.dataset)}
        out[judge] = longmemeval_tables.claims(results, margin, context)
    return out
