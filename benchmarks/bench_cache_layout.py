"""Call-cache look-ups in both layouts: one SQLite file (`llm.cache_layout=file`) against a folder of per-process
files merged on read (`shards`). Prints microseconds per miss (claim + record, as LLMClient pays a call), per hit,
and the ratio shards/file; the sharded folder also holds other jobs' files, as on a cluster.

    python benchmarks/bench_cache_layout.py [--calls 2000] [--other-shards 50]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tailmem.llm.cache import CallCache, request_hash
from tailmem.llm.cache_shards import ShardedCallCache
from tailmem.llm.records import ChatResponse, Usage


def _request(i: int) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": f"question {i} " + "context " * 200}]}


def _answer(i: int) -> ChatResponse:
    return ChatResponse(f"answer {i}", (), Usage(300, 0, 8), "m", False, 0.5)


def run(cache, n: int) -> tuple[float, float]:
    """Seconds per miss (get, claim, put) and per hit (get) over n distinct requests."""
    keys = [request_hash(_request(i)) for i in range(n)]
    t0 = time.perf_counter()
    for i, k in enumerate(keys):
        assert cache.get(k) is None and cache.claim(k) == "owner"
        cache.put(k, "judge", "bench", "instruct", _request(i), _answer(i), 0.0)
    t1 = time.perf_counter()
    for k in keys:
        assert cache.get(k) is not None
        cache.count_hit("judge", "bench")
    t2 = time.perf_counter()
    cache.flush()
    return (t1 - t0) / n, (t2 - t1) / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--other-shards", type=int, default=50, help="other jobs' files in the sharded folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file_miss, file_hit = run(CallCache(Path(tmp) / "c.sqlite"), args.calls)
        folder = Path(tmp) / "c.shards"
        for j in range(args.other_shards):  # other jobs' files: 20 calls each
            other = ShardedCallCache(folder)  # a new instance writes a new file
            for i in range(20):
                k = request_hash({"job": j, "i": i})
                other.put(k, "judge", "other", "instruct", {"job": j}, _answer(i), 0.0)
            os.close(other._writer())
        shard_miss, shard_hit = run(ShardedCallCache(folder), args.calls)
        cold = ShardedCallCache(folder)
        t0 = time.perf_counter()
        cold.refresh()
        index_s = time.perf_counter() - t0
    print(f"{args.calls} calls; sharded folder with {args.other_shards} other jobs' files (20 calls each)")
    print(f"{'layout':8} {'miss us':>10} {'hit us':>10}")
    print(f"{'file':8} {file_miss * 1e6:10.1f} {file_hit * 1e6:10.1f}")
    print(f"{'shards':8} {shard_miss * 1e6:10.1f} {shard_hit * 1e6:10.1f}")
    print(f"ratio shards/file: miss {shard_miss / file_miss:.2f}, hit {shard_hit / file_hit:.2f}")
    print(f"a new process indexes the folder ({len(cold._calls)} calls) in {index_s * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
