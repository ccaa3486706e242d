"""Stage fsmem_table13: paper 2's Table 13 (appendix D.2), the LoCoMo table again without the defective golds.

Reads the answers the unfiltered LoCoMo table reads (every `fsmem.variants` store of the overlay's conversation,
searched through `center`), drops the questions of the shipped D.2 overlay (`TABLE13_OVERLAY`) from the same
per-question outcomes and writes `table13_locomo_filtered` (tailmem.studies.fsmem.gold_filtered). The answers must be
scored on the standard data: Table 13 is the comparison of the two.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from tailmem import outputs
from tailmem.errors import DataError
from tailmem.fsmem.benchmarks import conversation_file, full_conversation
from tailmem.fsmem.harnesses import MAIN_HARNESS
from tailmem.fsmem.variants import check_variant
from tailmem.metrics import gold_overlay
from tailmem.metrics.answer_length import answer_tokens
from tailmem.metrics.locomo_f1 import locomo_f1
from tailmem.paths import ANSWERS_FILE, answers_dir, out_dir, role_label, tables_dir
from tailmem.provenance import save_provenance, table_footer
from tailmem.records.fsmem import FsmemAnswers
from tailmem.report.table_io import write_table
from tailmem.roles import SEARCHER
from tailmem.stage import typed_stage
from tailmem.studies.fsmem import gold_filtered
from tailmem.studies.fsmem.locomo import variant_dir

log = logging.getLogger("tailmem")
TABLE13_OVERLAY = "locomo/d2-v1"  # paper 2 appendix D.2
HARNESS = MAIN_HARNESS  # the main LoCoMo table's search harness (studies/fsmem/rules.smk rule fsmem_table)


def answers_file(cfg, variant: str, conv: str) -> Path:
    """Where the main LoCoMo run of a variant of the composed config `cfg` keeps its answers (the unfiltered table
    reads the same file)."""
    return answers_dir(variant_dir(cfg, variant, conv), HARNESS, role_label(cfg, SEARCHER)) / ANSWERS_FILE


def per_question(cfg, conv: str) -> pd.DataFrame:
    """One row per variant and question, with the answer's token count."""
    recs = []
    for variant in cfg.fsmem.variants:
        check_variant(variant)
        path = answers_file(cfg.composed, variant, conv)
        if not path.exists():
            raise DataError(f"{path}: missing; run its Snakemake rule first (rule fsmem_answers)")
        data = FsmemAnswers.read(path)
        if data.gold_overlay:
            raise DataError(
                f"{path}: scored under gold overlay {data.gold_overlay.get('name')}; Table 13 compares "
                "against the standard data, so answer with fsmem.gold_overlay=null"
            )
        recs += [
            {
                "variant": variant,
                "question": r["question"],
                "category": r["category"],
                "gold": r["gold"],
                "answer": r["answer"],
                "f1": r["f1"],
                "judge_correct": r.get("judge_correct"),
                "answer_tokens": answer_tokens(r["answer"]),
            }
            for r in data.rows
        ]
    return pd.DataFrame(recs)


@typed_stage("fsmem_table13")
def table13(cfg) -> None:
    overlay = gold_overlay.load(TABLE13_OVERLAY)
    fs = cfg.fsmem
    conv = overlay.conversation
    qa = full_conversation(fs, overlay.benchmark, conv).qa
    gold_overlay.check(overlay, overlay.benchmark, conv, qa, conversation_file(fs, overlay.benchmark, conv))
    df, checks = gold_filtered.table13(per_question(cfg, conv), overlay, qa, locomo_f1)
    out = out_dir(cfg, tables_dir(cfg))
    stem = outputs.TABLE13_LOCOMO_FILTERED
    files = [conversation_file(fs, overlay.benchmark, conv), overlay.path]
    write_table(
        out,
        stem,
        df.round(4),
        gold_filtered.TITLE,
        gold_filtered.note(checks, overlay),
        table_footer(cfg, data_files=files),
    )
    save_provenance(
        out / f"{stem}.provenance", cfg, data_files=files, agent=stem, gold_overlay=overlay.provenance(), checks=checks
    )
    log.info(
        "%s: ordering unchanged %s, every non-closed-book variant up %s -> %s",
        stem,
        checks["ordering unchanged"],
        checks["every non-closed-book variant up"],
        out / f"{stem}.md",
    )
