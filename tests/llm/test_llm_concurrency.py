"""In-job concurrency and pacing of model calls: independent units side by side under one knob (`concurrency`,
capped by the job's share of `--resources llm_slots`), in-process models one at a time, and requests held back
under a hosted endpoint's requests and tokens per minute instead of answered with 429s."""

import time

import pytest

from llm_testkit import FakeServer, llm_cfg
from tailmem.errors import ConfigError
from tailmem.llm import get_client, pacing
from tailmem.llm.group import roles, settings
from tailmem.llm.pacing import Pacer
from tailmem.llm.parallel import SLOTS_ENV, llm_slots, run_units, units_workers, workers_for


class Client:
    def __init__(self, backend, concurrency=8):
        self.backend = backend
        self.settings = type("S", (), {"concurrency": concurrency})()


def user(text):
    return [{"role": "user", "content": text}]


def test_units_come_back_in_order_and_the_first_failure_is_raised_after_all_ran():
    ran = []

    def fn(u):
        time.sleep(0.01 * (5 - u))
        ran.append(u)
        if u in (1, 3):
            raise ValueError(f"unit {u}")
        return u * 10

    assert run_units(lambda u: u * 10, range(5), 3) == [0, 10, 20, 30, 40]
    for workers in (1, 3):
        ran.clear()
        with pytest.raises(ValueError, match="unit 1"):
            run_units(fn, range(5), workers)
        assert sorted(ran) == [0, 1, 2, 3, 4]


def test_one_knob_capped_by_units_and_the_granted_slots(monkeypatch):
    monkeypatch.delenv(SLOTS_ENV, raising=False)
    assert workers_for(Client("openai", 8), 20) == 8
    assert workers_for(Client("openai", 8), 3) == 3
    assert workers_for(Client("replay", 4), 20) == 4  # answers from the cache: no model to share
    # the embedded model is one process-local object: its calls serialize, so one unit at a time
    assert workers_for(Client("instruct", 8), 20) == workers_for(Client("local", 8), 20) == 1
    assert units_workers(20, Client("openai", 8), None, Client("instruct")) == 1
    assert units_workers(20, None) == 1  # programmatic agents call no model
    monkeypatch.setenv(SLOTS_ENV, "5")
    assert workers_for(Client("openai", 8), 20) == 5
    monkeypatch.setenv(SLOTS_ENV, "0")  # a job that asked for no slot is not capped by them
    assert workers_for(Client("openai", 8), 20) == 8
    monkeypatch.setenv(SLOTS_ENV, "many")
    with pytest.raises(ConfigError, match=SLOTS_ENV):
        workers_for(Client("openai", 8), 20)


def test_a_rule_asks_for_its_roles_concurrency_on_a_shared_endpoint_only(tmp_path):
    cfg = llm_cfg(tmp_path, "http://127.0.0.1:1/v1", concurrency=6)
    cfg["llm"]["roles"]["judge"]["concurrency"] = 3
    cfg["llm"]["roles"]["builder"] = {"backend": "programmatic"}
    assert llm_slots(cfg, ("searcher", "judge")) == 6 and llm_slots(cfg, ("judge",)) == 3
    assert llm_slots(cfg, ("builder",)) == 0
    cfg["llm"]["roles"]["judge"] = {"backend": "instruct", "model": "m"}
    assert llm_slots(cfg, ("judge",)) == 0  # the embedded model is the job's own


def test_chat_many_holds_concurrency_calls_in_flight(tmp_path):
    with FakeServer(latency_s=0.2, reasoning=True) as server:
        cfg = llm_cfg(
            tmp_path, server.base_url, concurrency=4, roles={"judge": {"backend": "openai", "model": "gpt-5.4-mini"}}
        )
        cfg["llm"]["prices"] = {"gpt-5.4-mini": {"input": 1, "cached_input": 0.1, "output": 2}}
        client = get_client(cfg, "judge", "test")
        client.chat_many([{"messages": user(f"q{i}")} for i in range(10)])
    assert server.max_active == 4 and server.statuses == {200: 10}


def test_pacing_keeps_the_request_rate_under_its_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(pacing, "WINDOW_S", 1.0)  # a one-second "minute", so the test runs in seconds
    arrivals, sends = [], []
    acquire = pacing.Pacer.acquire

    def recorded(self, tokens=0):  # the pacer's own send times: a loaded machine delays arrivals, not these
        entry = acquire(self, tokens)
        sends.append(entry[0])
        return entry

    monkeypatch.setattr(pacing.Pacer, "acquire", recorded)
    with FakeServer() as server:
        server.on_request = lambda n: arrivals.append(time.monotonic())
        cfg = llm_cfg(tmp_path, server.base_url, concurrency=8, requests_per_minute=3)
        client = get_client(cfg, "judge", "test")
        start = time.monotonic()
        client.chat_many([{"messages": user(f"q{i}")} for i in range(7)])
        took = time.monotonic() - start
    assert len(arrivals) == 7 and len(sends) == 7 and took >= 2.0  # 3 + 3 + 1: two windows waited
    for t in sends:  # every window of one second holds at most 3 sends
        assert sum(t <= u < t + 1.0 for u in sends) <= 3, sends


def test_pacing_holds_tokens_until_the_window_has_room():
    now = [0.0]
    pacer = Pacer(None, 1000, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    first = pacer.acquire(600)
    pacer.acquire(300)
    pacer.acquire(300)  # 1,200 > 1,000: waits until the first send leaves the window
    assert now[0] == pytest.approx(60.0)
    pacer.settle(first, 100)  # already out of the window: nothing to give back
    big = Pacer(None, 100, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    big.acquire(5000)  # larger than the whole limit: sent once the window is empty, not never
    entry = big.acquire(0)
    big.settle(entry, 0)
    assert big.waited_s == pytest.approx(60.0)


def test_a_paced_reply_settles_its_reserved_tokens(tmp_path, monkeypatch):
    with FakeServer() as server:
        cfg = llm_cfg(tmp_path, server.base_url, tokens_per_minute=100_000, max_output_tokens=5000)
        client = get_client(cfg, "judge", "test")
        client.chat(user("hello"))
        pacer = pacing.pacer_for(server.base_url, "test-model", None, 100_000)
    (entry,) = pacer._sends
    assert 0 < entry[1] < 5000 and pacer._tokens == entry[1]  # the billed total, not the 5,000-token output cap


@pytest.mark.parametrize("key", ["requests_per_minute", "tokens_per_minute"])
def test_a_pacing_limit_is_checked_and_names_its_key(tmp_path, key):
    cfg = llm_cfg(tmp_path, "http://127.0.0.1:1/v1")
    cfg["llm"]["roles"]["judge"][key] = 0
    with pytest.raises(ConfigError, match=rf"llm\.roles\.judge\.{key}=0"):
        settings(cfg)
    cfg["llm"]["roles"]["judge"][key] = None  # null at a role: no pacing, whatever the group says
    cfg["llm"][key] = 100
    s = roles(settings(cfg))
    assert getattr(s["judge"], key) is None and getattr(s["searcher"], key) == 100
