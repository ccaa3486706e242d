"""Indexing and retrieval per LongMemEval S question (about 50 sessions, ~115k tokens), and peak memory.

For each question of a stratified subset of the S sample (3 per type by default): BM25 indexing of its sessions
and turns (bm25s), scoring the question against both indexes, building the memory items, counting their tokens
(first time, uncached), and building the Graph Memory and CTMC prompts. The plain reference is Flat Retrieval's
word-overlap scan over the same items (no index). Peak Python memory of one whole question is taken with
tracemalloc in a separate pass (it slows what it traces); the process's max RSS is printed at the end.
Measures and prints; asserts nothing.

    python benchmarks/bench_longmemeval.py [per_type]
"""

from __future__ import annotations

import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

from tailmem.data.longmemeval import load, select
from tailmem.haystack.haystack_memory import build_store
from tailmem.haystack.retrieval import _index, _scores, rank
from tailmem.memory.controllers import make_controller
from tailmem.memory.query import Query
from tailmem.memory.tokens import TokenCounter

DATA = Path(os.environ.get("TAILMEM_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
S_FILE = DATA / "longmemeval" / "longmemeval_s_cleaned.sample60.json"


def one_question(q) -> dict:
    t = {}
    start = time.perf_counter()
    session_texts = [" ".join(x.content for x in s.turns) for s in q.sessions]
    turn_texts = [x.content or " " for s in q.sessions for x in s.turns]
    si, ti = _index(session_texts), _index(turn_texts)
    t["index"] = time.perf_counter() - start
    start = time.perf_counter()
    _scores(si, q.question, len(session_texts))
    _scores(ti, q.question, len(turn_texts))
    t["retrieve"] = time.perf_counter() - start
    ranking = rank(q.sessions, q.question)  # both again, as the stage does it (index + score)
    start = time.perf_counter()
    store = build_store(q, q.sessions, ranking)
    t["items"] = time.perf_counter() - start
    counter = TokenCounter()
    start = time.perf_counter()
    tokens = sum(counter.lines(item.compact) for item in store.items.values())
    t["count_tokens"] = time.perf_counter() - start
    query = Query(step=0, current=ranking.order[0], related=tuple(ranking.order[1:5]), text=q.question)
    start = time.perf_counter()
    gm = make_controller({"name": "graph_memory", "budget": 6000, "rank_by": "query"}).build(store, query, counter)
    t["graph_memory"] = time.perf_counter() - start
    start = time.perf_counter()
    make_controller({"name": "ctmc", "budget": int(0.75 * gm.tokens), "rank_by": "query"}).build(store, query, counter)
    t["ctmc"] = time.perf_counter() - start
    start = time.perf_counter()
    make_controller({"name": "flat_retrieval", "k": 5, "budget": None}).build(store, query, counter)
    t["plain_overlap_scan"] = time.perf_counter() - start
    t["sessions"], t["turns"], t["tokens"] = len(q.sessions), len(turn_texts), tokens
    return t


def main() -> None:
    per_type = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    start = time.perf_counter()
    questions = select(load(S_FILE), per_type)
    print(f"loaded {S_FILE.name} and selected {len(questions)} questions in {time.perf_counter() - start:.2f} s")
    one_question(questions[0])  # warm-up: imports, tokenizer load
    rows = [one_question(q) for q in questions]
    keys = ["index", "retrieve", "items", "count_tokens", "graph_memory", "ctmc", "plain_overlap_scan"]
    print(
        f"per S question (n={len(rows)}): sessions {np.mean([r['sessions'] for r in rows]):.1f}, "
        f"turns {np.mean([r['turns'] for r in rows]):.0f}, item tokens {np.mean([r['tokens'] for r in rows]):,.0f}"
    )
    print(f"{'step':<28}{'median ms':>10}{'mean ms':>10}{'max ms':>10}")
    for k in keys:
        v = np.array([r[k] for r in rows]) * 1e3
        print(f"{k:<28}{np.median(v):>10.1f}{v.mean():>10.1f}{v.max():>10.1f}")
    total = np.array([sum(r[k] for k in keys) for r in rows]) * 1e3
    print(f"{'total (one question)':<28}{np.median(total):>10.1f}{total.mean():>10.1f}{total.max():>10.1f}")
    tracemalloc.start()
    one_question(questions[0])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak Python memory of one question (tracemalloc): {peak / 2**20:.1f} MiB")
    print(
        f"process max RSS (incl. the loaded S sample): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
