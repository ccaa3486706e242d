"""The skill chain: no leakage from task k or later into task k's store, and a failed load skips one task."""

import pytest

from tailmem.studies.alfworld.play.chain import run_chain, segments
from tailmem.studies.alfworld.play.curator import VARIANTS, ProgrammaticCurator, sources
from tailmem.studies.alfworld.play.episode import EpisodeRecord
from tailmem.studies.alfworld.play.games import FAMILIES, Game, interleaved
from tailmem.studies.alfworld.play.goal import parse_goal
from tailmem.studies.alfworld.play.retriever import retrieve

GOALS = {
    "pick_and_place_simple": (
        "put some book on sidetable",
        [
            ("go to drawer 1", "You arrive at drawer 1. On the drawer 1, you see a book 1."),
            ("take book 1 from drawer 1", "You pick up the book 1 from the drawer 1."),
            ("go to sidetable 1", "You arrive at sidetable 1. On the sidetable 1, you see nothing."),
            ("move book 1 to sidetable 1", "You move the book 1 to the sidetable 1."),
        ],
    ),
    "pick_heat_then_place_in_recep": (
        "heat some apple and put it in diningtable",
        [
            ("go to fridge 1", "You arrive at fridge 1. The fridge 1 is open. In it, you see a apple 1."),
            ("take apple 1 from fridge 1", "You pick up the apple 1 from the fridge 1."),
            ("heat apple 1 with microwave 1", "You heat the apple 1 using the microwave 1."),
            ("move apple 1 to diningtable 1", "You move the apple 1 to the diningtable 1."),
        ],
    ),
}


def games(n):
    fams = list(GOALS)
    return [Game("valid_seen", f"{fams[i % 2]}-X-{i}/trial", fams[i % 2]) for i in range(n)]


def fake_attempt(fail_ids=()):
    def attempt(game, guidance):
        if game.id in fail_ids:
            return EpisodeRecord(game.split, game.id, game.family, False, error="FileNotFoundError: no game file")
        goal, traj = GOALS[game.family]
        ok = int(game.id.split("-")[2].split("/")[0]) % 3 != 1
        return EpisodeRecord(game.split, game.id, game.family, True, ok, len(traj), 0, goal, trajectory=tuple(traj))

    return attempt


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("protocol", ["three_chain", "full_chain"])
def test_store_for_task_k_holds_nothing_from_k_or_later(tmp_path, variant, protocol):
    order = games(12)
    seen = []

    def retrieve_for(store, game):
        k = order.index(game)
        seen.append((k, sources(store)))
        goal = parse_goal(GOALS[game.family][0])
        got = retrieve(variant, store, goal, game.family)
        assert all(int(n) < k for n in __import__("re").findall(r"task (\d+)", got.guidance))
        return got

    curator = ProgrammaticCurator(variant)
    recs = run_chain(order, protocol, tmp_path / "store", retrieve_for, fake_attempt(), curator.curate)
    assert len(recs) == 12
    starts = [seg[0] for seg in segments(order, protocol)]
    chain_start = 0
    for k, held in seen:
        if order[k] in starts:
            chain_start = k
        assert all(chain_start <= s < k for s in held), (k, held)
        assert recs[k].store_sources_max < k
    if variant != "no_store":
        assert max(seen[-1][1]) == 10  # the store did learn from earlier tasks


def test_failed_load_is_reported_and_the_chain_goes_on(tmp_path):
    order = games(6)
    bad = order[2].id
    recs = run_chain(
        order,
        "full_chain",
        tmp_path / "s",
        lambda s, g: retrieve("episode_log", s, parse_goal(GOALS[g.family][0]), g.family),
        fake_attempt({bad}),
        ProgrammaticCurator("episode_log").curate,
    )
    assert [r.ran for r in recs] == [True, True, False, True, True, True]
    assert "no game file" in recs[2].error and recs[2].id == bad
    assert recs[3].store_files == 3  # the failed task wrote nothing, the next ones did


def test_interleaved_order_round_robins_families():
    gs = [Game("valid_seen", f"{f}-{i}", f) for f in FAMILIES for i in range(2)]
    order = interleaved(gs)
    assert [g.family for g in order[:6]] == list(FAMILIES)
    assert interleaved(list(reversed(gs))) == order
