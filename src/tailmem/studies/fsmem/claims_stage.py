"""Stage fsmem_claims: paper 2's claims checked on the study's per-question answers (table `claims_fsmem`).

Reads the answers of every study run (`tailmem.fsmem.run_list`: main = RQ1/RQ2, harness = RQ5, strength = RQ3),
flattens them to one row per question and arm, and hands them to `tailmem.studies.fsmem.claims.claims`; the
intervals, tests and margin come from the `stats` config group.
"""

from __future__ import annotations

import logging

import pandas as pd

from tailmem import outputs
from tailmem.errors import DataError
from tailmem.fsmem import run_list
from tailmem.fsmem.benchmarks import conversation_file
from tailmem.fsmem.questions import asked
from tailmem.judges import claims as judge_claims
from tailmem.judges import verdicts as judge_verdicts
from tailmem.paths import out_dir, tables_dir
from tailmem.power.stated import planned_power
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemAnswers
from tailmem.report.table_io import write_table
from tailmem.roles import BUILDER, JUDGE, SEARCHER
from tailmem.stage import typed_stage
from tailmem.stats.group import settings
from tailmem.studies.fsmem import claims as fsmem_claims
from tailmem.studies.fsmem import design_rows
from tailmem.studies.fsmem.report import agents_note

log = logging.getLogger("tailmem")
STUDIES = (("main", run_list.main_runs), ("harness", run_list.harness_runs), ("strength", run_list.strength_runs))


def answers_of(run: run_list.Run, study_name: str) -> list[dict]:
    """One record per question of a run's answers.json, in the columns `fsmem_claims.ANSWER_COLUMNS`."""
    if not run.answers_file.exists():
        raise DataError(f"{run.answers_file}: missing; run its Snakemake rule first (studies/fsmem/rules.smk)")
    rows = FsmemAnswers.read(run.answers_file).rows
    arm = {
        "study": study_name,
        "benchmark": run.benchmark,
        "conversation": run.conversation,
        "variant": run.variant,
        "harness": run.harness,
        BUILDER: run.builder,
        SEARCHER: run.searcher,
    }
    return [
        arm
        | {
            "qid": r["qid"],
            "question": r["question"],
            "f1": r["f1"],
            "judge_correct": r.get("judge_correct"),
            "search_chars_read": r["search_chars_read"],
            "search_dollars": r["search_dollars"],
        }
        for r in rows
    ]


@typed_stage("fsmem_claims")
def run(cfg) -> None:
    s = settings(cfg)
    records, runs, keys = [], [], []
    for name, runs_of in STUDIES:
        for r in runs_of(cfg.composed):
            got = answers_of(r, name)
            records += got
            keys += [(judge_verdicts.fsmem_answers_key(cfg.results_dir, r.answers_file), str(a["qid"])) for a in got]
            runs.append(r)
    answers = pd.DataFrame(records, columns=list(fsmem_claims.ANSWER_COLUMNS))
    # the strength runs come in fsmem.study.strength.searchers order, weakest first: the ladder claims_fsmem walks
    # as the design check plans them, beside the verdicts
    planned = planned_power(design_rows.row(cfg, s.min_units, s.alpha, asked(cfg.fsmem)))
    df = fsmem_claims.claims(answers, s, s.margins.fsmem_tie, planned=planned)
    judged = judge_verdicts.read_verdicts(cfg) if cfg.judges.claims else None
    if judged is not None:  # the same claims with correctness from each judge (tailmem.judges.claims)
        by_judge = {}
        for j in dict.fromkeys(judged[JUDGE]):
            marks = judge_verdicts.verdict_map(judged, j)
            under = answers.assign(judge_correct=[marks.get(k, float("nan")) for k in keys])
            by_judge[j] = fsmem_claims.claims(under, s, s.margins.fsmem_tie)
        df = judge_claims.with_sensitivity(df, by_judge)
    out = out_dir(cfg, tables_dir(cfg))
    files = list(dict.fromkeys(conversation_file(cfg.fsmem, r.benchmark, r.conversation) for r in runs))
    stem = outputs.FSMEM_STUDY_TABLES["fsmem_claims"]
    judge_note = f" {judge_claims.NOTE}" if judge_claims.SENSITIVE in df else ""
    write_table(
        out,
        stem,
        df.round(4),
        fsmem_claims.TITLE,
        f"{fsmem_claims.note(s, s.margins.fsmem_tie)}{judge_note} {agents_note(cfg.composed)}",
        table_footer(cfg, data_files=files),
    )
    save_provenance(out / f"{stem}.provenance", cfg, data_files=files, agent=stem)
    log.info("%s: %d rows (%s) -> %s", stem, len(df), df["verdict"].value_counts().to_dict(), out / f"{stem}.md")
