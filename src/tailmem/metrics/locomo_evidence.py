"""LoCoMo evidence coverage: did what the search agent read hold the gold evidence dialogues (the model-free twin of
F1, as evidence coverage is for the controllers of paper 1).

What the agent read is every tool output it was shown (grep hits, views, sections, retrieved chunks, shell output).
`answers.json` records each call (`search_trace`: tool, arguments, ok) and its outputs lie beside it
(`tailmem.fsmem.tool_outputs`; a set from before them is replayed through a fresh read-only harness over its store,
which stays on disk); every stored line keeps its dialogue locator (`[D3:1]`), so the dialogue ids read are the locators in those outputs. Coverage of one
question is the fraction of its gold evidence ids among them, as LoCoMo's scorer computes `<model>_recall` from a
prediction's dialogue context; questions without usable evidence ids are left out (nan).

Gold evidence strings are read leniently, as the data needs: "D8:6; D9:17" and "D9:1 D4:4" hold several ids,
"D30:05" is D30:5; strings with no `D<session>:<turn>` in them (e.g. "D") give no id.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable

_ID = re.compile(r"(?<![\w:])D(\d+):(\d+)(?![\d:])")


def dialogue_ids(text: str) -> set[str]:
    """Every `D<session>:<turn>` in a text, without leading zeros."""
    return {f"D{int(s)}:{int(t)}" for s, t in _ID.findall(text or "")}


def gold_ids(evidence: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for e in evidence:
        out |= dialogue_ids(str(e))
    return out


def replay_reads(output: Callable[[str, dict], str], trace: Iterable, cache: dict | None = None) -> set[str]:
    """The dialogue ids in the outputs of a trace's successful calls; `output(tool, args)` gives a call's text, as
    recorded when the question was answered (tailmem.fsmem.tool_outputs) or replayed through a harness over the
    same store. Failed calls showed only an error and are skipped. The harness is read-only, so `cache` may keep
    each distinct call's ids across the questions of one store."""
    cache = {} if cache is None else cache
    seen: set[str] = set()
    for name, args, ok in trace:
        if not ok:
            continue
        key = (name, json.dumps(args, sort_keys=True))
        if key not in cache:
            cache[key] = dialogue_ids(output(name, args))
        seen |= cache[key]
    return seen


def coverage(read: set[str], evidence: Iterable[str]) -> float:
    """Fraction of the gold evidence ids that were read (nan when the question has none)."""
    gold = gold_ids(evidence)
    return len(gold & read) / len(gold) if gold else math.nan


def match_evidence(rows: list[dict], qa) -> list[tuple[str, ...]]:
    """The gold evidence of each answers.json row, found by (question, category) in the conversation's QA list in
    file order (a question asked twice takes its occurrences in turn)."""
    pending: dict[tuple[str, int], deque] = defaultdict(deque)
    for q in qa:
        pending[(q.question, int(q.category))].append(tuple(q.evidence))
    out = []
    for r in rows:
        key = (r["question"], int(r["category"]))
        if not pending[key]:
            raise KeyError(
                f"answers.json row {r.get('qid')}: question {r['question']!r} (category {r['category']}) "
                "is not in the conversation's QA list"
            )
        out.append(pending[key].popleft())
    return out


def annotate(rows: list[dict], qa, output: Callable[[str, dict], str]) -> list[dict]:
    """Each row with `evidence`, `evidence_read` (gold ids that were read, sorted) and `evidence_coverage`;
    `output` as for `replay_reads`."""
    out, cache = [], {}
    for row, evidence in zip(rows, match_evidence(rows, qa)):
        read = replay_reads(output, row.get("search_trace", []), cache)
        gold = gold_ids(evidence)
        out.append(
            row
            | {
                "evidence": list(evidence),
                "evidence_read": sorted(gold & read),
                "evidence_coverage": coverage(read, evidence),
            }
        )
    return out
