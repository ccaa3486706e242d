"""LongMemEval: one page per question of a run (dataset, answerer, seed) with every arm side by side — the memory
block with its core and tail lines marked, its tokens, evidence coverage, the answer, the gold answer and the
verdicts. The blocks are the ones the stage built (`rows.parquet` keeps `memory` and `marks` per row)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pandas as pd

from tailmem.records.longmemeval import LongMemEvalRows
from tailmem.roles import JUDGE, PROGRAMMATIC, SEARCHER, is_programmatic
from tailmem.site.model import Row, Section, slug, verdict
from tailmem.site.pages import Writer
from tailmem.site.transcripts import Transcripts

ROWS_FILE = "rows.parquet"  # tailmem.longmemeval.rows.ROWS_FILE (not imported: the site never imports stages)


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
    root = results / "longmemeval"
    runs = []
    for path in sorted(root.rglob(ROWS_FILE)) if root.is_dir() else []:
        try:
            df = LongMemEvalRows.read(path).frame
        except Exception as exc:  # noqa: BLE001
            section.notes.append(f"{path}: unreadable ({exc})")
            continue
        rel = PurePosixPath(path.parent.relative_to(root).as_posix())
        folder = f"longmemeval/{rel}"
        if "memory" not in df.columns:
            section.notes.append(
                f"{path.parent}: saved before the stage kept memory blocks; re-run stage longmemeval to see them"
            )
        records = df.to_dict("records")
        runs.append((folder, rel, records))
        for r in records:
            href = f"{folder}/{slug(r['qid'])}.html#arm-{slug(r['arm'])}"
            dataset = str(r.get("dataset", rel.parts[0] if rel.parts else ""))
            filters = {
                "dataset": dataset,
                "seed": str(r.get("seed", "")),
                "arm": r["arm"],
                "question_type": r.get("question_type", ""),
                "correct": _correct(r),
            }
            section.rows.append(
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

    def draw(w: Writer) -> None:
        for folder, rel, records in runs:
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
                    run=str(rel),
                    prev_href=f"{folder}/{slug(qids[k - 1])}.html" if k > 0 else None,
                    next_href=f"{folder}/{slug(qids[k + 1])}.html" if k + 1 < len(qids) else None,
                    back="longmemeval/index.html",
                )

    section.draw = draw
    return section
