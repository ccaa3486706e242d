"""A memory cell's games are independent, so a model executor plays them side by side: against the strict test
server (200 ms a reply) the cell holds min(concurrency, games) requests in flight, and its episodes are those of
one game at a time (the same rows in the same order, the same requests in the call cache). The env steps take
turns on one lock (tailmem.studies.alfworld.play.env); the model calls overlap."""

import json
import sqlite3

import pytest

pytest.importorskip("alfworld")
pytest.importorskip("textworld")

from llm_testkit import FakeServer  # noqa: E402
from tailmem.cli import main  # noqa: E402
from tailmem.studies.alfworld import episodes as stage  # noqa: E402

GAMES = 4


def reply(body):
    text = body["messages"][-1]["content"]
    action = "look" if "look" in text else "inventory"
    return f"<think>step</think>\n<action>{action}</action>"


@pytest.fixture(scope="module")
def four_games(data_dir, tmp_path_factory):
    """Four games of one family, regenerated for the installed alfworld: four different prompts per step."""
    from tailmem.studies.alfworld.play import regenerate as R
    from tailmem.studies.alfworld.play.games import split_games

    root = data_dir / "alfworld"
    picked = [g for g in split_games(root, "valid_seen") if g.family == "pick_and_place_simple"][:GAMES]
    out = tmp_path_factory.mktemp("games")
    domain, grammar = R.installed_logic()
    for g in picked:
        R.regenerate(g, root / "json_2.1.1", out, domain, grammar, seed=0, expert_check=False)
    return picked, {g.id: out / g.split / g.id / R.GAME_FILE for g in picked}


@pytest.mark.slow
def test_a_memory_cells_games_run_side_by_side(four_games, tmp_path, monkeypatch):
    """The games' environment steps take turns on one lock while their model calls overlap: a reply slower than a
    game's load and step (1.5 s, against a few hundred ms on a loaded machine) lets all four be in flight."""
    games, files = four_games
    monkeypatch.setattr(stage, "subset_games", lambda cfg, subset: games)
    monkeypatch.setattr(stage, "manifest_of", lambda cfg, subset: {})
    monkeypatch.setattr(stage, "game_file", lambda cfg, g: files[g.id])
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("TAILMEM_LLM_SLOTS", raising=False)
    runs = {}
    with FakeServer(reasoning=True, reply=reply) as server:
        for concurrency in (1, GAMES):
            out, cache = tmp_path / f"cell{concurrency}", tmp_path / f"cache{concurrency}.sqlite"
            argv = [
                "alfworld_memory",
                "scale=smoke",
                f"results_dir={tmp_path}/results",
                "alfworld.max_steps=4",
                f"out={out}",
                "llm=openai",
                f"llm.base_url={server.base_url}",
                f"llm.cache_path={cache}",
                f"llm.concurrency={concurrency}",
                "llm.retries=0",
            ]
            server.max_active, before = 0, server.requests
            server.latency_s = 1.5 if concurrency > 1 else 0.0  # one at a time needs no slow reply to show it
            assert main(argv) == 0
            episodes = json.loads((out / "episodes.json").read_text())["episodes"]
            with sqlite3.connect(cache) as conn:
                hashes = sorted(h for (h,) in conn.execute("SELECT hash FROM calls"))
            rows = [{k: v for k, v in e.items() if k != "seconds"} for e in episodes]
            runs[concurrency] = (server.requests - before, server.max_active, rows, hashes)
    (sent1, flight1, rows1, hashes1), (sent, flight, rows, hashes_) = runs[1], runs[GAMES]
    assert len(rows) == GAMES and all(r["loaded"] and r["steps"] == 4 for r in rows), rows
    assert flight1 == 1 and flight >= GAMES, (flight, sent)
    assert rows == rows1 and (sent, hashes_) == (sent1, hashes1)
