"""The real environment (the `easy_game` fixture is in conftest.py): regenerate one game for the installed alfworld, the text patch changes nothing, the
programmatic agent solves an easy game, a missing game file is reported by id."""

import json
from pathlib import Path

import pytest

pytest.importorskip("alfworld")
pytest.importorskip("textworld")

from tailmem.memory.controllers import make_controller  # noqa: E402
from tailmem.memory.tokens import TokenCounter  # noqa: E402
from tailmem.studies.alfworld.play import regenerate as R  # noqa: E402
from tailmem.studies.alfworld.play import speedup  # noqa: E402
from tailmem.studies.alfworld.play.env import GameEnv, alfred_game_files  # noqa: E402
from tailmem.studies.alfworld.play.episode import run_episode  # noqa: E402
from tailmem.studies.alfworld.play.executor import ProgrammaticExecutor  # noqa: E402
from tailmem.studies.alfworld.play.games import Game  # noqa: E402

# slow: regenerates and plays real games (1-5 s each)
pytestmark = pytest.mark.slow


def test_regenerated_game_uses_the_installed_grammar(easy_game):
    game, path, rec = easy_game
    assert rec.ok, rec.error
    assert rec.walkthrough_steps > 0
    assert rec.goal in ("put some book on sidetable", "put a book in sidetable")
    data = json.loads(path.read_text())
    assert 'template :: "move {o} to {r}"' in data["grammar"] and "put {o} in/on {r}" not in data["grammar"]
    assert data["solvable"] and data["walkthrough"][-1].startswith("move book")
    assert str(path.resolve()) in {str(Path(p).resolve()) for p in alfred_game_files(path.parents[2])}


COMMANDS = ["go to drawer 1", "open drawer 1", "go to diningtable 1", "look"]


def _play(path):
    """The game's observations after reset and after each of COMMANDS."""
    env = GameEnv(path)
    out = [env.reset()]
    out += [env.step(c) for c in COMMANDS]
    env.close()
    return out


def test_text_patch_changes_no_observation(easy_game):
    _, path, _ = easy_game

    speedup.uninstall()
    plain = _play(path)
    speedup.install()
    assert _play(path) == plain


KITCHEN = "pick_clean_then_place_in_recep-ButterKnife-None-Drawer-2/trial_T20190908_121728_511866"


VERBS = ("go to", "open", "take", "clean", "move", "go to", "close", "examine", "inventory", "go to", "use")


def _wander(path, steps=20):
    """Observations of a fixed walk that changes the state: at step k, an admissible command with the kth verb
    of VERBS (the (7k)th admissible command if none has it)."""
    env = GameEnv(path, max_steps=steps + 1)
    out = [env.reset()]
    for k in range(steps):
        now = out[-1].admissible
        verb = [c for c in now if c.startswith(VERBS[k % len(VERBS)])]
        out.append(env.step(verb[k % len(verb)] if verb else now[(7 * k) % len(now)]))
    env.close()
    return out


def test_memoised_queries_change_no_observation_in_a_kitchen(data_dir, tmp_path):
    """Issue 18: the memoised condition parse, the per-state sorted facts and the pickled template copies give
    the same text and admissible commands as TextWorld's own code, step for step, in a game with many
    receptacles, appliances and conditional feedback."""
    from tailmem.studies.alfworld.play.games import split_games

    root = data_dir / "alfworld"
    game = next(g for g in split_games(root, "valid_seen") if g.id == KITCHEN)
    domain, grammar = R.installed_logic()
    rec = R.regenerate(game, root / "json_2.1.1", tmp_path, domain, grammar, seed=0, expert_check=False)
    assert rec.ok, rec.error
    path = tmp_path / "valid_seen" / KITCHEN / R.GAME_FILE
    speedup.uninstall()
    try:
        plain = _wander(path)
    finally:
        speedup.install()
    assert len({o.text for o in plain}) > 10  # the walk really goes places
    assert _wander(path) == plain


def test_the_memoised_expert_walks_the_same_plan(easy_game):
    """The expert's digit stripping, memoised (838,926 calls for two of the excluded games' four attempts each,
    about a third of the expert's time), returns the original's value for any name and leaves the expert's
    walkthrough as it was."""
    from alfworld.agents.expert.handcoded_expert import BasePolicy

    _, path, _ = easy_game
    names = ["butterknife 2", "countertop 12", "x\u00b2 1 ", " drawer\t3", ""]  # \u00b2 is a digit to isdigit()
    speedup.uninstall()
    try:
        plain = R.expert_walkthrough(path, "memo")
        stripped = [BasePolicy.remove_num_ids(None, n) for n in names]
    finally:
        speedup.install()
    assert (
        [BasePolicy.remove_num_ids(None, n) for n in names]
        == stripped
        == ["butterknife", "countertop", "x", "drawer", ""]
    )
    assert plain and R.expert_walkthrough(path, "memo") == plain


def test_cached_translations_change_no_observation_and_are_translated_once(easy_game, tmp_path):
    """Issue 18: a game's PDDL -> SAS translation (four per game, ~0.5 s each) is kept in memory and on disk; the
    game plays the same with the cache, cold or warm, as with fast_downward's own translation, and a second
    process (memory cleared) reads the folder instead of translating."""
    import fast_downward

    _, path, _ = easy_game

    speedup.uninstall()
    plain = _play(path)
    calls = []
    real = fast_downward.pddl2sas

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    fast_downward.pddl2sas = counted
    try:
        speedup.install(tmp_path / "sas")
        assert _play(path) == plain and len(calls) == 2  # load and reset translate the same text: 2 of 4 translated
        assert len(list((tmp_path / "sas").glob("*.pkl"))) == 2
        speedup._SAS["memory"].clear()  # as a new process would start
        assert _play(path) == plain and len(calls) == 2  # every translation came from the folder
    finally:
        speedup.uninstall()
        fast_downward.pddl2sas = real
        speedup.install()


def test_programmatic_agent_solves_an_easy_game(easy_game):
    game, path, _ = easy_game
    speedup.install()
    ctl = make_controller({"name": "ctmc", "budget": 64, "tau": 1.0, "rank_by": "query"})
    rec = run_episode(game, path, ProgrammaticExecutor(), ctl, TokenCounter(), "", max_steps=50)
    assert rec.loaded and rec.success and rec.steps <= 20
    assert rec.memory_tokens > 0 and sum(rec.accesses.values()) > 0


def test_missing_game_is_reported_with_its_id(tmp_path):
    game = Game("valid_seen", "pick_and_place_simple-None-0/trial_x", "pick_and_place_simple")
    rec = run_episode(
        game,
        tmp_path / "nope" / "game.tw-pddl",
        ProgrammaticExecutor(),
        make_controller({"name": "graph_memory", "budget": None}),
        TokenCounter(),
    )
    assert not rec.loaded and rec.error and rec.id == game.id


def test_regeneration_failure_names_the_game(tmp_path):
    game = Game("valid_seen", "pick_and_place_simple-None-0/trial_missing", "pick_and_place_simple")
    domain, grammar = R.installed_logic()
    rec = R.regenerate(game, tmp_path, tmp_path / "out", domain, grammar, seed=0)
    assert not rec.ok
    assert "traj_data.json" in rec.error or "initial_state.pddl" in rec.error
