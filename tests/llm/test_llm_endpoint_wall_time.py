"""benchmarks/endpoint_wall_time.py on a call cache of known per-call tokens: the capacity bound is the tokens over the
stated rates, each chain's hours are its calls times one call's latency, and the verdict names the longest chain."""

import importlib.util
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tailmem.roles import EXECUTOR, POLICY, PREDICTOR

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "endpoint_wall_time.py"


def _bench():
    spec = importlib.util.spec_from_file_location("endpoint_wall_time", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["endpoint_wall_time"] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def _cache(path: Path) -> Path:
    """A call cache with the columns the benchmark reads: every executor call 1,000 prompt tokens, 10 output."""
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE calls (role TEXT, stage TEXT, prompt_tokens INTEGER, cached_tokens INTEGER, "
            "completion_tokens INTEGER)"
        )
        rows = [(EXECUTOR, "alfworld_memory", 1000, 0, 10)] * 6 + [(POLICY, "rollout", 200, 100, 1)] * 4
        conn.executemany("INSERT INTO calls VALUES (?, ?, ?, ?, ?)", rows)
    return path


def test_a_chain_is_its_calls_times_one_calls_latency(tmp_path):
    from tailmem.workflow import compose_config

    bench = _bench()
    measured = compose_config("smoke_model")
    target = compose_config("paper_model", ["alfworld.model_executor=react"])
    ep = bench.Endpoint(prompt_tps=10_000, decode_tps=10, parallel=4, overhead_s=0.1, prefix_cache=True)
    rates, notes = bench.measured_rates(_cache(tmp_path / "c.sqlite"), measured, target)
    ex = rates[(EXECUTOR, "alfworld_memory")]
    assert (ex.prompt, ex.cached) == (1000, 0)
    assert ex.output == target.llm.roles.executor.max_output_tokens  # choose measured, react at the target: its cap
    assert any("react" in n for n in notes) and any(PREDICTOR in n for n in notes)
    chooses, _ = bench.measured_rates(_cache(tmp_path / "d.sqlite"), measured, compose_config("paper_model"))
    assert chooses[(EXECUTOR, "alfworld_memory")].output == 10  # paper_model chooses too: the measured output
    (alf,) = [c for c in bench.chains(target, measured, rates, ep, 540) if c["name"].startswith("ALFWorld")]
    steps = bench.ALFWORLD_VALID_SEEN * target.alfworld.max_steps
    assert alf["coded"] == alf["concurrent"] == steps  # the log makes the games one chain either way
    assert alf["seconds"][0] == pytest.approx(steps * (0.1 + 1000 / 10_000 + ex.output / 10))
    assert ep.latency(200, 100, 1) == pytest.approx(0.1 + 100 / 10_000 + 1 / 10)


def test_the_script_prints_the_bound_and_what_it_takes(tmp_path):
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--cache", str(_cache(tmp_path / "c.sqlite")), "--prompt-tps", "30000"]
        + ["--decode-tps", "2"],  # a slow decode: the ALFWorld chain is over the hour
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "Capacity bound:" in out and "bound by ALFWorld episode_log cell" in out
    assert "cut it" in out and "shorter chains side by side" in out
