"""`cache stats` and `llm_cost` with no --db report the calls the last run of the scale recorded, its model slice's
included (issue: "the run's calls are not where `cache stats` looks").

After `snakemake --cores 2`, `python -m tailmem cache stats` said "no call cache at results/llm_cache.sqlite":
the default scale's model slice records its calls under its own results folder (configs/scale/default_model.yaml:
results_dir results/model), and the command looked only at the composed config's `llm.cache_path`. Here calls are
recorded where a run of each scale puts them (in a working directory of the test's), and the commands are asked
with no arguments, as a user asks them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llm_testkit import llm_cfg
from tailmem.cli import main as cli_main
from tailmem.llm import get_client


def record(server, db: Path, role: str, stage: str, prompts: list[str]) -> None:
    """Calls of `role` in `stage` recorded in the cache file `db` (a real client against the test server)."""
    db.parent.mkdir(parents=True, exist_ok=True)
    client = get_client(llm_cfg(db.parent, server.base_url, cache_path=str(db)), role, stage)
    for p in prompts:
        client.chat([{"role": "user", "content": p}])
    client.cache.flush()


def rows(out: str, role: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines() if line.startswith(role + " ")]


def test_cache_stats_reports_the_run_and_its_model_slice(server, tmp_path, monkeypatch, capsys):
    """The default scale: the programmatic run's cache (absent: offline, nothing recorded) and the slice's."""
    monkeypatch.chdir(tmp_path)
    record(server, tmp_path / "results" / "model" / "llm_cache.sqlite", "searcher", "fsmem_answer", ["a", "b", "c"])
    record(server, tmp_path / "results" / "model" / "llm_cache.sqlite", "judge", "fsmem_answer", ["verdict?"])
    assert cli_main(["cache", "stats"]) == 0
    out = capsys.readouterr().out
    assert "results/model/llm_cache.sqlite" in out and "default_model" in out
    assert "results/llm_cache.sqlite (scale default): nothing recorded" in out
    (searcher,) = rows(out, "searcher")
    assert searcher[:7] == ["searcher", "fsmem_answer", "0", "3", "3", "0", "3"]
    (judge,) = rows(out, "judge")
    assert judge[:4] == ["judge", "fsmem_answer", "0", "1"]


def test_cache_stats_of_another_scale_and_of_both_caches(server, tmp_path, monkeypatch, capsys):
    """scale=smoke: results/smoke/ and its slice's results/smoke/model/, each reported under its own path."""
    monkeypatch.chdir(tmp_path)
    record(server, tmp_path / "results" / "smoke" / "llm_cache.sqlite", "judge", "longmemeval", ["x", "y"])
    record(server, tmp_path / "results" / "smoke" / "model" / "llm_cache.sqlite", "judge", "longmemeval", ["z"])
    assert cli_main(["cache", "stats", "scale=smoke"]) == 0
    out = capsys.readouterr().out
    sections = out.split("call cache ")[1:]
    assert [s.split()[0] for s in sections] == [
        "results/smoke/llm_cache.sqlite",
        "results/smoke/model/llm_cache.sqlite",
    ]
    assert [rows(s, "judge")[0][3] for s in sections] == ["2", "1"]  # misses: each cache's own calls


def test_no_cache_recorded_names_every_place_looked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli_main(["cache", "stats"]) == 1
    err = capsys.readouterr().err
    assert "results/llm_cache.sqlite" in err and "results/model/llm_cache.sqlite" in err


def test_llm_cost_with_no_db_prices_every_cache_of_the_run(server, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    record(server, tmp_path / "results" / "smoke" / "llm_cache.sqlite", "judge", "longmemeval", ["x", "y"])
    record(server, tmp_path / "results" / "smoke" / "model" / "llm_cache.sqlite", "judge", "longmemeval", ["z"])
    assert cli_main(["llm_cost", "scale=smoke", "llm=openai"]) == 0
    out = capsys.readouterr().out
    (judge,) = rows(out, "judge")
    assert judge[:4] == ["judge", "longmemeval", "gpt-5.4-mini", "3"]  # the run's 2 calls and the slice's 1
    assert out.rstrip().endswith("for 3 calls")


@pytest.mark.parametrize("command", [["cache", "stats"], ["llm_cost"]])
def test_an_explicit_db_is_still_the_one_read(server, tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "elsewhere" / "c.sqlite"
    record(server, db, "judge", "test", ["q"])
    assert cli_main([*command, "--db", str(db)]) == 0
    assert rows(capsys.readouterr().out, "judge")[0][:2] == ["judge", "test"]
