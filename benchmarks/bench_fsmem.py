"""Latency of grep, toc and BM25 search on a generated 1,000-file store, BM25 index build and query
throughput of bm25s vs rank_bm25 (pip install rank_bm25==0.2.2), and the cost of building a store through the
writable Shell sandbox against the management tools (LoCoMo conv-50, programmatic builder; reads the data
directory, TAILMEM_DATA_DIR or ../shared/data). Measures and prints; asserts nothing.

    python benchmarks/bench_fsmem.py
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time

import bm25s

from tailmem.fsmem.store import Store, render
from tailmem.fsmem.terms import terms
from tailmem.fsmem.tools.center import center_bm25

VOCAB = [f"w{i}" for i in range(5000)] + "car music travel tokyo ferrari concert shop guitar family dog".split()


def make_store(root: str, files: int = 1000, seed: int = 0) -> Store:
    rng = random.Random(seed)
    s = Store(root)
    for i in range(files):
        body = []
        for h in range(rng.randint(2, 6)):
            body.append(f"## {rng.randint(1, 28)} May, 2023 (session {h + 1})")
            body += [f"- [D{h + 1}:{j}] " + " ".join(rng.choices(VOCAB, k=20)) for j in range(rng.randint(3, 10))]
        path = s.root / f"topic_{i % 25:02d}" / f"file_{i:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(f"generated file {i}", "\n".join(body) + "\n"))
    return s


def timed(fn, repeat: int) -> tuple[float, float]:
    xs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        xs.append(time.perf_counter() - t)
    return statistics.median(xs) * 1e3, min(xs) * 1e3


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        store = make_store(d + "/store")
        print(f"store: {store.stats()}")
        t = time.perf_counter()
        h = center_bm25(store)
        print(f"Center+BM25 harness build (index 1,000 files): {(time.perf_counter() - t) * 1e3:.0f} ms")
        cases = [
            ("grep literal, whole store", "grep", {"pattern": "ferrari"}),
            ("grep regex, whole store", "grep", {"pattern": r"w12\d\b.*tokyo"}),
            ("grep, one folder", "grep", {"pattern": "ferrari", "path": "topic_03"}),
            ("toc, whole store", "toc", {"path": ""}),
            ("toc, one file", "toc", {"path": "topic_03/file_0003.md"}),
            ("view tree", "view", {"path": ""}),
            ("BM25 search k=5", "search", {"query": "ferrari concert tokyo"}),
        ]
        print(f"{'operation':34s} {'median ms':>10s} {'min ms':>8s}")
        for label, name, args in cases:
            med, best = timed(lambda: h.call(name, args), 5)
            print(f"{label:34s} {med:10.2f} {best:8.2f}")

        corpus = [terms(store.read(p)) for p in store.files()]
        rng = random.Random(1)
        queries = [rng.choices(VOCAB, k=3) for _ in range(500)]
        print("\nBM25 libraries on the same 1,000 tokenized documents, 500 three-word queries, top 10")
        t = time.perf_counter()
        r = bm25s.BM25()
        r.index(corpus, show_progress=False)
        b_build = time.perf_counter() - t
        t = time.perf_counter()
        r.retrieve(queries, k=10, show_progress=False)
        b_query = time.perf_counter() - t
        print(
            f"bm25s {bm25s.__version__}: build {b_build * 1e3:.1f} ms, queries {len(queries) / b_query:,.0f}/s (batched)"
        )
        try:
            import rank_bm25
        except ImportError:
            print("rank_bm25: not installed (pip install rank_bm25==0.2.2)")
            return
        t = time.perf_counter()
        o = rank_bm25.BM25Okapi(corpus)
        r_build = time.perf_counter() - t
        t = time.perf_counter()
        for q in queries:
            scores = o.get_scores(q)
            scores.argsort()[-10:]
        r_query = time.perf_counter() - t
        print(f"rank_bm25 0.2.2 (BM25Okapi): build {r_build * 1e3:.1f} ms, queries {len(queries) / r_query:,.0f}/s")
        print(
            f"bm25s speed-up: build x{r_build / b_build:.1f}, query x{(len(queries) / b_query) / (len(queries) / r_query):.1f}"
        )


def build_through_harnesses() -> None:
    """agent_curated on conv-50 through center (the management tools: the plain reference) and shell."""
    import hashlib
    from pathlib import Path

    from tailmem.fsmem.benchmarks import conversation
    from tailmem.fsmem.sandbox import available
    from tailmem.fsmem.snapshots import SnapshotLog
    from tailmem.fsmem.variants import build
    from tailmem.workflow import compose_config

    if available() != "bwrap":
        print("\nShell build: bubblewrap not available here, skipped")
        return
    fs = compose_config("default").fsmem
    conv = conversation(fs, "locomo", "conv-50")
    times, digests = {}, {}
    for harness in ("center", "shell"):
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "store")
            t = time.perf_counter()
            episodes = build("agent_curated", conv, store, SnapshotLog(Path(tmp) / "snaps"), fs, build_harness=harness)
            times[harness] = time.perf_counter() - t
            digests[harness] = hashlib.sha256(
                b"".join(p.encode() + (store.root / p).read_bytes() for p in sorted(store.files()))
            ).hexdigest()
            calls = sum(e.tool_calls for e in episodes)
        print(
            f"\nagent_curated conv-50 ({len(episodes)} chunks) through {harness:6s}: {times[harness]:6.2f} s, "
            f"{calls} tool calls, {times[harness] / calls * 1e3:.1f} ms per call"
        )
    print(
        f"Shell build / management-tools build: x{times['shell'] / times['center']:.1f}; "
        f"stores byte-identical: {digests['shell'] == digests['center']}"
    )


if __name__ == "__main__":
    main()
    build_through_harnesses()
