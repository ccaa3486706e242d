"""LongMemEval: one page per question of a run (dataset, answerer, seed) with every arm side by side — the memory
block with its core and tail lines marked, its tokens, evidence coverage, the answer, the gold answer and the
verdicts. The blocks are the ones the stage built (`rows.parquet` keeps `memory` and `marks` per row)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tailmem.records.longmemeval import LongMemEvalRows
from tailmem.roles import JUDGE, PROGRAMMATIC, SEARCHER, is_programmatic
from tailmem.site.collect import Files, Found, from_files
from tailmem.site.model import Row, Section, slug, verdict
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

ROWS_FILE = "rows.parquet"  # tailmem.haystack.rows.ROWS_FILE (not imported: the site never imports stages)


def _value(row: dict, key: str):
    v = row.get(key)
    if v is None:
        return None
    try:
        if pd.isna(v):
            return None
    except (TypeError, ValueError):
        pass
    return v


def _correct(row: dict) -> str:
    """The judge's verdict where a judge model ran, else the substring match the tables report."""
    judged = _value(row, "judge_correct")
    return verdict(judged if judged is not None else _value(row, "correct"))


def collect(results: Path, cfg, transcripts: Transcripts) -> Section:
    section = Section(
        key="longmemeval",
        title="LongMemEval: every question under every arm",
        blurb="One row per (question, arm). Each question's page sets the arms side by side: the memory block "
        "(core lines plain, summarised tail lines marked), its tokens, evidence coverage (the share of the "
        "answer's evidence turns in the prompt), the answer, the gold answer and the verdict. Correct = the "
        "judge's verdict where a judge model ran, else substring match (paper 1).",
        columns=["dataset", "seed", "question type", "question", "arm", "prompt tokens", "coverage", "correct"],
        filters=[
            ("dataset", "dataset"),
            ("seed", "seed"),
            ("arm", "arm"),
            ("question_type", "question type"),
            ("correct", "correct"),
        ],
    )
    run = Files(
        f"**/{ROWS_FILE}",
        read=lambda path: LongMemEvalRows.read(path).frame,
        rows=_rows,
        draw=lambda w, found: _draw(w, found, transcripts),
        note=_without_blocks,
    )
    return from_files(section, results, run)


def _without_blocks(run: Found) -> str | None:
    if "memory" not in run.data.columns:
        return f"{run.path.parent}: saved before the stage kept memory blocks; re-run stage longmemeval to see them"
    return None


def _rows(run: Found) -> list[Row]:
    """One row per (question, arm) of a run."""
    out = []
    for r in run.data.to_dict("records"):
        href = f"{run.folder}/{slug(r['qid'])}.html#arm-{slug(r['arm'])}"
        dataset = str(r.get("dataset", run.rel.parts[0] if run.rel.parts else ""))
        filters = {
            "dataset": dataset,
            "seed": str(r.get("seed", "")),
            "arm": r["arm"],
            "question_type": r.get("question_type", ""),
            "correct": _correct(r),
        }
        out.append(
            Row(
                href,
                [
                    dataset,
                    r.get("seed"),
                    r.get("question_type"),
                    r.get("question") or r["qid"],
                    r["arm"],
                    r.get("prompt_tokens"),
                    r.get("coverage"),
                    filters["correct"],
                ],
                filters,
                f"{r.get('question', '')} {r['qid']} {r.get('gold', '')} {r.get('answer', '')}",
            )
        )
    return out


def _draw(w: Writer, runs: list[Found], transcripts: Transcripts) -> None:
    """One page per question of a run, its arms side by side."""
    for run in runs:
        folder, records = run.folder, run.data.to_dict("records")
        by_q: dict[str, list[dict]] = {}
        for r in records:
            by_q.setdefault(r["qid"], []).append(r)
        qids = list(by_q)
        for k, qid in enumerate(qids):
            arms = by_q[qid]
            first = arms[0]
            cards = []
            for r in arms:
                agent = r.get("answerer", "")
                call, matched = (None, 0)
                if not is_programmatic(agent) and first.get("question"):
                    needles = [str(first["question"])]
                    if r.get("memory"):
                        needles.append(str(r["memory"]).split("\n", 1)[0])
                    call, matched = transcripts.transcript(SEARCHER, "longmemeval", needles)
                cards.append(
                    {
                        "r": r,
                        "anchor": "arm-" + slug(r["arm"]),
                        "correct": _correct(r),
                        JUDGE: _value(r, "judge_correct"),
                        "judge_reply": _value(r, "judge_reply"),
                        "call": call,
                        "matched": matched,
                        PROGRAMMATIC: is_programmatic(agent),
                    }
                )
            w.write(
                f"{folder}/{slug(qid)}.html",
                "longmemeval_item.html",
                title=f"LongMemEval {first.get('dataset', '')} · {qid} · seed {first.get('seed', '')}",
                q=first,
                cards=cards,
                run=str(run.rel),
                prev_href=f"{folder}/{slug(qids[k - 1])}.html" if k > 0 else None,
                next_href=f"{folder}/{slug(qids[k + 1])}.html" if k + 1 < len(qids) else None,
                back="longmemeval/index.html",
            )
