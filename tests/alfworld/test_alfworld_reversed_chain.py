"""The reversed chain: the full chain's tasks in the reverse order, one store never reset, and still no leakage
from a task or a later one (by chain position) into the store a task is given."""

import re

import pytest
from test_alfworld_chain import GOALS, fake_attempt, games

from tailmem.studies.alfworld.play.chain import PROTOCOLS, chain_order, run_chain, segments
from tailmem.studies.alfworld.play.curator import ProgrammaticCurator, sources
from tailmem.studies.alfworld.play.goal import parse_goal
from tailmem.studies.alfworld.play.retriever import retrieve


def test_reversed_chain_is_one_chain_over_the_reversed_order():
    order = games(7)
    assert chain_order(order, "reversed_chain") == order[::-1]
    assert segments(order, "reversed_chain") == [order[::-1]]
    assert segments(order, "full_chain") == [order]  # the forward protocols keep the fixed order
    assert [len(s) for s in segments(order, "three_chain")] == [3, 3, 1]
    assert PROTOCOLS["reversed_chain"].chains == 1 and PROTOCOLS["reversed_chain"].reverse


@pytest.mark.parametrize("variant", ["episode_log", "curated_skills_memory"])
def test_reversed_chain_learns_from_the_earlier_positions_only(tmp_path, variant):
    order = games(9)
    played = order[::-1]
    seen = []

    def retrieve_for(store, game):
        k = played.index(game)
        seen.append((k, sources(store)))
        got = retrieve(variant, store, parse_goal(GOALS[game.family][0]), game.family)
        assert all(int(n) < k for n in re.findall(r"task (\d+)", got.guidance))
        return got

    recs = run_chain(
        order, "reversed_chain", tmp_path / "store", retrieve_for, fake_attempt(), ProgrammaticCurator(variant).curate
    )
    assert [r.id for r in recs] == [g.id for g in played] and [r.index for r in recs] == list(range(9))
    assert all(r.chain == 0 for r in recs)  # never reset
    for k, held in seen:
        assert all(s < k for s in held), (k, held)
    assert max(seen[-1][1]) == 7  # the last task's store holds every earlier position
    assert all(r.store_sources_max < r.index for r in recs)


def test_a_chain_seed_plays_a_seeded_permutation_and_no_task_leaks(tmp_path):
    """Issue 15: chain seed s > 0 plays numpy's PCG64 permutation of the fixed order (the same on any machine),
    every protocol cuts that order, the reversed chain reverses it, and the store still holds only earlier tasks."""
    import numpy as np

    from tailmem.studies.alfworld.play.chain import seeded_order

    order = games(9)
    assert seeded_order(order, 0) == order
    want = [order[i] for i in np.random.default_rng(1).permutation(9)]
    assert seeded_order(order, 1) == want != order and sorted(g.id for g in want) == sorted(g.id for g in order)
    assert seeded_order(order, 2) != want
    assert chain_order(order, "reversed_chain", 1) == want[::-1]
    assert [s for seg in segments(order, "three_chain", 1) for s in seg] == want

    def retrieve_for(store, game):
        return retrieve("episode_log", store, parse_goal(GOALS[game.family][0]), game.family)

    recs = run_chain(
        order,
        "full_chain",
        tmp_path / "store",
        retrieve_for,
        fake_attempt(),
        ProgrammaticCurator("episode_log").curate,
        seed=1,
    )
    assert [r.id for r in recs] == [g.id for g in want] and all(r.store_sources_max < r.index for r in recs)
