"""Importer of LongMemEval retrieval logs, the official format of its src/retrieval/run_retrieval.py: JSON lines,
one question each, with `question_id` and `retrieval_results.ranked_items`, a ranking of every corpus item of the
question's haystack (`corpus_id`, best first). A read is an item ranked within the top k (`audit_log.top_k`);
every ranked item is known to exist, so items never retrieved into the top k are counted with 0 reads.

Only the keys the audit needs are required (the official lines also carry the haystack, the question and the
metrics; tailmem's own stage writes those it has, tailmem.exports.longmemeval_retrieval).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tailmem.studies.audit_log.events import AccessEvent, AccessLog, LogError
from tailmem.studies.audit_log.formats.jsonl import json_lines


def ranked_ids(obj, path: Path, line: int) -> tuple[str, list[str]]:
    """(question id, ranked corpus ids) of one line, or LogError naming the line and question."""
    if not isinstance(obj, dict):
        raise LogError(path, line, f"expected a JSON object (one question), got {type(obj).__name__}")
    qid = obj.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise LogError(path, line, f"question_id={qid!r}: expected a non-empty string")
    results = obj.get("retrieval_results")
    ranked = results.get("ranked_items") if isinstance(results, dict) else None
    if not isinstance(ranked, list):
        raise LogError(
            path,
            line,
            f"question {qid}: expected retrieval_results.ranked_items, a list of "
            "{corpus_id, ...} best first (LongMemEval's run_retrieval.py format)",
        )
    ids = []
    for rank, entry in enumerate(ranked):
        cid = entry.get("corpus_id") if isinstance(entry, dict) else None
        if not isinstance(cid, str) or not cid:
            raise LogError(
                path,
                line,
                f"question {qid}: ranked_items[{rank}]: expected an object with a string corpus_id, got {entry!r:.80}",
            )
        ids.append(cid)
    if len(set(ids)) != len(ids):
        raise LogError(path, line, f"question {qid}: a corpus_id is ranked twice")
    return qid, ids


def _retrieval_events(path: Path, top_k: int, universe: dict):
    seen = set()
    run = path.name
    for line, obj in json_lines(path):
        qid, ids = ranked_ids(obj, path, line)
        if qid in seen:
            raise LogError(path, line, f"question {qid} appears twice")
        seen.add(qid)
        universe.update(dict.fromkeys(ids))
        for cid in ids[:top_k]:
            yield AccessEvent(run, qid, 0, cid, None, f"retrieval@{top_k}")


def read_longmemeval(path: str | Path, top_k: int) -> AccessLog:
    """Every question's top-k retrieved items as reads (episode = question id, step 0, rank in `source`)."""
    path = Path(path)
    universe: dict = {}
    log = AccessLog.scan(path, "longmemeval", lambda: _retrieval_events(path, top_k, universe))
    return replace(log, universe=tuple(universe))
