"""Stage fsmem_claims: paper 2's claims checked on the study's per-question answers (table `claims_fsmem`).

Reads the answers of every study run (`tailmem.fsmem.study`: main = RQ1/RQ2, harness = RQ5, strength = RQ3),
flattens them to one row per question and arm, and hands them to `tailmem.report.fsmem_claims.claims`; the
intervals, tests and margin come from the `stats` config group.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.records.fsmem import FsmemAnswers
from tailmem.errors import DataError
from tailmem.fsmem import study
from tailmem.provenance import save_provenance, table_footer
from tailmem.report import fsmem_claims
from tailmem.report.table_io import write_table
from tailmem.stages.fsmem_study import agents_note
from tailmem.stages.locomo import conversation_file
from tailmem.stats.settings import settings

log = logging.getLogger("tailmem")
STUDIES = (("main", study.main_runs), ("harness", study.harness_runs), ("strength", study.strength_runs))


def answers_of(run: study.Run, study_name: str) -> list[dict]:
    """One record per question of a run's answers.json, in the columns `fsmem_claims.ANSWER_COLUMNS`."""
    if not run.answers_file.exists():
        raise DataError(f"{run.answers_file}: missing; run its Snakemake rule first (workflows/fsmem_study.smk)")
    rows = FsmemAnswers.read(run.answers_file).rows
    arm = {"study": study_name, "benchmark": run.benchmark, "conversation": run.conversation,
           "variant": run.variant, "harness": run.harness, "builder": run.builder, "searcher": run.searcher}
    return [arm | {"qid": r["qid"], "question": r["question"], "f1": r["f1"], "judge_correct": r.get("judge_correct"),
                   "search_chars_read": r["search_chars_read"], "search_dollars": r["search_dollars"]} for r in rows]


def run(cfg) -> None:
    s = settings(cfg)
    records, runs = [], []
    for name, runs_of in STUDIES:
        for r in runs_of(cfg):
            records += answers_of(r, name)
            runs.append(r)
    answers = pd.DataFrame(records, columns=list(fsmem_claims.ANSWER_COLUMNS))
    # the strength runs come in fsmem.study.strength.searchers order, weakest first: the ladder claims_fsmem walks
    df = fsmem_claims.claims(answers, s, s.fsmem_tie_margin)
    out = Path(cfg.out) if cfg.get("out") else Path(cfg.results_dir) / "tables"
    files = list(dict.fromkeys(conversation_file(cfg.fsmem, r.benchmark, r.conversation) for r in runs))
    stem = outputs.FSMEM_STUDY_TABLES["fsmem_claims"]
    write_table(out, stem, df.round(4), fsmem_claims.TITLE,
                f"{fsmem_claims.note(s, s.fsmem_tie_margin)} {agents_note(cfg)}", table_footer(cfg, data_files=files))
    save_provenance(out / f"{stem}.provenance", cfg, data_files=files, agent=stem)
    log.info("%s: %d rows (%s) -> %s", stem, len(df), df["verdict"].value_counts().to_dict(), out / f"{stem}.md")
