"""The regenerated easy game the ALFWorld tests play (regenerated once per session for the installed alfworld)."""

import pytest

EASY = "pick_and_place_simple-Book-None-SideTable-329/trial_T20190908_050633_745514"


@pytest.fixture(scope="session")
def easy_game(data_dir, tmp_path_factory):
    pytest.importorskip("alfworld")
    pytest.importorskip("textworld")
    from tailmem.studies.alfworld.play import regenerate as R
    from tailmem.studies.alfworld.play.games import split_games

    root = data_dir / "alfworld"
    game = next(g for g in split_games(root, "valid_seen") if g.id == EASY)
    out = tmp_path_factory.mktemp("games")
    domain, grammar = R.installed_logic()
    rec = R.regenerate(game, root / "json_2.1.1", out, domain, grammar, seed=0, expert_check=True)
    return game, out / "valid_seen" / EASY / R.GAME_FILE, rec
