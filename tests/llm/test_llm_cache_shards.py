"""The sharded call cache (one file per process, merged on read): processes writing one folder at once lose and
corrupt nothing, each request is paid once across them, and a torn file (a writer killed mid-line) does not break
reads."""

import json
import multiprocessing
import os
import time

import pytest
from test_llm_cache import run_stage

from llm_testkit import FakeServer
from tailmem.llm.cache import CallCache
from tailmem.llm.cache_shards import ShardedCallCache, shards_dir
from tailmem.llm.records import ChatResponse, Usage

WRITERS = 6
OWN = 40  # keys only one writer asks
SHARED = 30  # keys every writer asks: paid once, by whichever claims first


def _key(i: int) -> str:
    return f"{i:064x}"


def _answer(i: int) -> ChatResponse:
    return ChatResponse(f"answer {i}", (), Usage(100 + i, i % 7, 3), "m", False, 0.01 * i)


def _writer(folder: str, w: int, start, paid) -> None:
    """One job: its own keys, then the shared ones through claim/wait, as LLMClient does."""
    cache = ShardedCallCache(folder)
    start.wait()
    for i in range(OWN):
        k = 10_000 * (w + 1) + i
        cache.put(_key(k), "judge", f"stage{w}", "instruct", {"k": k}, _answer(k), 0.0)
    for i in range(SHARED):
        while True:
            state = cache.claim(_key(i))
            if state == "owner":
                time.sleep(0.002)  # the model call
                cache.put(_key(i), "judge", "shared", "instruct", {"k": i}, _answer(i), 0.0)
                with paid.get_lock():
                    paid.value += 1
                break
            got = cache.get(_key(i)) if state == "done" else cache.wait(_key(i))
            if got is not None:
                assert got.content == f"answer {i}"
                cache.count_hit("judge", "shared")
                break
    cache.flush()


def test_processes_writing_one_folder_lose_nothing_and_pay_once(tmp_path):
    folder = tmp_path / "llm_cache.shards"
    ctx = multiprocessing.get_context("fork")
    start, paid = ctx.Event(), ctx.Value("i", 0)
    procs = [ctx.Process(target=_writer, args=(str(folder), w, start, paid)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * WRITERS
    assert paid.value == SHARED  # every shared request paid once across the processes

    reader = ShardedCallCache(folder)
    assert len(reader) == WRITERS * OWN + SHARED and reader.skipped == 0
    for w in range(WRITERS):
        for i in range(OWN):
            k = 10_000 * (w + 1) + i
            got = reader.get(_key(k))
            assert (got.content, got.usage, got.latency_s) == (f"answer {k}", _answer(k).usage, _answer(k).latency_s)
    assert all(reader.get(_key(i)).content == f"answer {i}" for i in range(SHARED))
    shards = [n for n in os.listdir(folder) if n.endswith(".jsonl")]
    assert len(shards) == WRITERS and not os.listdir(folder / "claims")  # one file per process; no claim left
    stats = {r.stage: r for r in reader.stats()}
    assert stats["shared"].calls == SHARED and stats["shared"].misses == SHARED
    assert stats["shared"].hits == SHARED * (WRITERS - 1)
    assert all(stats[f"stage{w}"].calls == OWN == stats[f"stage{w}"].misses for w in range(WRITERS))

    merged = tmp_path / "merged.sqlite"  # the one-file copy for the tools that read SQLite
    assert reader.merge_into(merged) == WRITERS * OWN + SHARED
    single = CallCache(merged)
    assert single.get(_key(3)).content == "answer 3"
    assert {r.stage: (r.calls, r.hits, r.misses) for r in single.stats()} == {
        s: (r.calls, r.hits, r.misses) for s, r in stats.items()
    }


def test_a_torn_shard_does_not_break_reads(tmp_path):
    folder = tmp_path / "c.shards"
    writer = ShardedCallCache(folder)
    for i in range(5):
        writer.put(_key(i), "judge", "s", "instruct", {"k": i}, _answer(i), 0.0)
    whole = writer.own.read_bytes()
    # a second writer killed mid-line: its file ends inside a record
    torn = folder / "node2-999-1.jsonl"
    line = whole.splitlines(keepends=True)[0].replace(_key(0).encode(), _key(7).encode())
    torn.write_bytes(line + line.replace(_key(7).encode(), _key(8).encode())[: len(line) // 2])
    # garbage a foreign or broken write left: not a record, a record with a bad hash, bytes of a lost page
    (folder / "node3-5-1.jsonl").write_bytes(b"C\tnot-a-hash\t{}\t{}\n\x00\x00\x00\x00\nX\tjunk\n")

    reader = ShardedCallCache(folder)
    assert len(reader) == 6  # the five, and the torn file's whole first line
    assert reader.get(_key(7)).content == "answer 0"
    assert reader.get(_key(8)) is None  # its line is not whole
    assert all(reader.get(_key(i)).content == f"answer {i}" for i in range(5))
    assert reader.skipped == 3
    # the writer of the torn file is gone, but a live one finishing its line later is read then
    with open(torn, "ab") as f:
        f.write(line.replace(_key(7).encode(), _key(8).encode())[len(line) // 2 :])
    assert reader.get(_key(8)).content == "answer 0"
    assert {r.stage: r.calls for r in reader.stats()} == {"s": 7}


def test_a_dead_claim_is_taken_over(tmp_path):
    cache = ShardedCallCache(tmp_path / "c.shards")
    (cache.claims / _key(1)).write_text(json.dumps([os.uname().nodename, 2**22 + 12345, time.time()]))
    assert cache.claim(_key(1)) == "owner"  # its owner (no such pid) is gone
    other = ShardedCallCache(tmp_path / "c.shards")
    (other.claims / _key(2)).write_text(json.dumps(["another-node", 1, time.time()]))
    assert other.claim(_key(2)) == "wait"  # another host's fresh claim is trusted
    (other.claims / _key(2)).write_text(json.dumps(["another-node", 1, time.time() - 7200]))
    assert other.claim(_key(2)) == "owner"  # until it is older than stale_s


def test_shards_dir_sits_beside_the_cache_file():
    assert shards_dir("results/llm_cache.sqlite").as_posix() == "results/llm_cache.shards"


@pytest.mark.slow
def test_stage_processes_on_a_sharded_cache_pay_each_request_once(tmp_path):
    with FakeServer(latency_s=0.02) as server:
        procs = [
            run_stage(tmp_path / "llm_cache.sqlite", server.base_url, tmp_path / f"o{i}.json", 20, "--many", "--shards")
            for i in range(4)
        ]
        assert [p.wait(timeout=120) for p in procs] == [0] * 4
        assert server.requests == 20
    cache = ShardedCallCache(tmp_path / "llm_cache.shards")
    assert len(cache) == 20 and cache.skipped == 0
    (row,) = cache.stats()
    assert row.hits + row.misses == 80 and row.misses == 20
    outs = [json.loads((tmp_path / f"o{i}.json").read_text()) for i in range(4)]
    assert len({json.dumps([o[0] for o in out]) for out in outs}) == 1
    assert not (tmp_path / "llm_cache.sqlite").exists()
