"""The search finds a planted optimum, never lets the held-out family steer it, caches each walk once, and samples
its space reproducibly."""

import pytest
from calibkit import PLANTED, distance, fit, records

from tailmem.settings.calibration import SpaceGroup
from tailmem.studies.calibration import tables as ct
from tailmem.studies.calibration.protocol import Protocol, grid, sample
from tailmem.studies.calibration.search import WalkCache, run_search

SPACE = SpaceGroup(
    episodes=[5, 20, 50],
    steps=[20, 50],
    start=["uniform", "continue"],
    k=[1, 3, 5],
    items=["all", "stored"],
    sigma_unit=["mean"],
)


def test_the_search_finds_the_planted_optimum():
    result = run_search(grid(SPACE), lambda w: records(w, distance), fit(), progress=False)
    best = result.best
    assert (best.episodes, best.steps, best.start, best.k) == (20, 50, "continue", 3)
    assert best.fit_loss < 1e-4  # Table 2's slope refitted from the paper's sigmas: the paper's to 3 decimals
    assert best.fit_reached and best.fit_relations_broken == 0
    assert result.protocols.fit_loss.is_monotonic_increasing


def test_the_held_out_family_is_excluded_from_the_fit():
    """A walk perfect on the held-out family alone and far off elsewhere is not chosen, and wrecking the held-out
    family's numbers changes no fitted score."""
    decoy = Protocol(5, 20, "uniform", 1, "all", "mean").walk

    def off(walk, family):
        if walk == decoy:
            return 0.0 if family == "modular" else 0.5
        return distance(walk, family)

    def wrecked(walk, family):
        return 3.0 if family == "modular" else off(walk, family)

    a = run_search(grid(SPACE), lambda w: records(w, off), fit(holdout="modular"), progress=False)
    b = run_search(grid(SPACE), lambda w: records(w, wrecked), fit(holdout="modular"), progress=False)
    assert (a.best.episodes, a.best.k) == (PLANTED.episodes, PLANTED.k)
    assert list(a.protocols.protocol) == list(b.protocols.protocol)
    assert a.protocols.fit_loss.tolist() == b.protocols.fit_loss.tolist()
    assert (b.protocols.holdout_loss > a.protocols.holdout_loss).all()
    held = ct.summary(a, Protocol(5, 20, "uniform", 1, "all", "mean").key)
    assert held.set_index("which").loc["best on the held-out family alone", "holdout_loss"] == pytest.approx(
        0, abs=1e-4
    )
    cells = ct.cells(a, a.best.protocol, "modular", 0.1)
    assert set(cells[cells.family == "modular"].role) == {"held out"}
    assert set(cells[cells.family != "modular"].role) == {"fitted"}


def test_each_walk_is_measured_once_and_cached(tmp_path):
    calls = []

    def measure(walk):
        calls.append(walk)
        return records(walk, distance)

    protocols = grid(SPACE)
    first = run_search(protocols, measure, fit(), WalkCache(tmp_path), progress=False)
    walks = {p.walk for p in protocols}
    assert len(calls) == len(walks) == len(list(tmp_path.glob("*.json")))
    again = run_search(protocols, measure, fit(), WalkCache(tmp_path), progress=False)
    assert len(calls) == len(walks)  # the second search read every walk from the cache
    assert again.protocols.equals(first.protocols)


def test_a_sample_is_reproducible_and_drawn_from_the_space():
    every = grid(SPACE)
    a, b = sample(SPACE, 10, seed=3), sample(SPACE, 10, seed=3)
    assert a == b and len(set(a)) == 10 and set(a) <= set(every)
    assert sample(SPACE, 10, seed=4) != a
    assert sample(SPACE, None, 0) == every == sample(SPACE, 10_000, 0)


def test_the_table_has_the_documented_columns():
    result = run_search(grid(SPACE), lambda w: records(w, distance), fit(), progress=False)
    default = Protocol(5, 20, "uniform", 1, "all", "mean").key
    frame = ct.cells(result, default, "modular", 0.1)
    assert list(frame.columns) == ct.COLUMNS
    assert len(frame) == 3 * (3 * 3 + 1)  # three families: Table 7's 3 metrics x 3 sizes and Table 2's slope
    assert frame.within_tolerance.all() and frame.reachable_alone.all()
    summary = ct.summary(result, default)
    assert list(summary.which) == [
        "this scale's protocol",
        "best on the fitted families",
        "best on the held-out family alone",
    ]
    assert summary.fit_rank.iloc[1] == 1
    assert set(ct.relations(result, default, "modular").columns) >= {
        "family",
        "relation",
        "role",
        "best_holds",
        "holds_share",
    }
