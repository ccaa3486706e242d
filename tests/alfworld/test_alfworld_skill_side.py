"""The report stage's readers of a skill cell: the store each task was given (restored from `before_<game>`) and
what curating it changed (`before_`/`after_` snapshots), from a small programmatic chain."""

from test_alfworld_chain import GOALS, fake_attempt, games

from record_kit import placeholder
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.records.alfworld import AlfworldChain
from tailmem.studies.alfworld import report as stage
from tailmem.studies.alfworld.play.chain import run_chain, to_rows
from tailmem.studies.alfworld.play.curator import ProgrammaticCurator
from tailmem.studies.alfworld.play.goal import parse_goal
from tailmem.studies.alfworld.play.layout import snapshot_label
from tailmem.studies.alfworld.play.retriever import retrieve


def _cell(folder, variant, n=5):
    snaps = SnapshotLog(folder / "snapshots")
    curator = ProgrammaticCurator(variant)

    def retrieve_for(store, game):
        snaps.take(store, snapshot_label("before", game.id))
        return retrieve(variant, store, parse_goal(GOALS[game.family][0]), game.family)

    def curate(store, k, game_id, ep):
        written = curator.curate(store, k, game_id, ep)
        snaps.take(store, snapshot_label("after", game_id))
        return written

    recs = run_chain(games(n), "full_chain", folder / "store", retrieve_for, fake_attempt(), curate)
    placeholder(AlfworldChain, tasks=to_rows(recs)).write(folder / "chain.json")
    return recs


def test_store_and_effort_rows_read_the_snapshots_around_each_task(tmp_path, monkeypatch):
    cells = {v: tmp_path / v for v in ("no_store", "episode_log")}
    recs = {v: _cell(folder, v) for v, folder in cells.items()}
    monkeypatch.setattr(stage.layout, "skills_dir", lambda cfg, subset, p, v, seed=0: cells[v])
    stores = stage.skill_stores(None, "smoke", ["full_chain"], list(cells))
    log_ = stores[stores.variant == "episode_log"]
    assert list(log_.files) == [0, 1, 2, 3, 4]  # episode log: one file per earlier task
    assert list(log_["index"]) == list(range(5)) and (stores[stores.variant == "no_store"].files == 0).all()
    effort = stage.skill_effort(None, "smoke", ["full_chain"], list(cells))
    e = effort[effort.variant == "episode_log"]
    assert (e.files_touched == 1).all() and (e.bytes_added > 0).all()
    assert list(e.curation_chars) == [r.curation_chars for r in recs["episode_log"]]
    assert e.rounds.isna().all()  # a programmatic curator has no rounds
    assert (effort[effort.variant == "no_store"].files_touched == 0).all()
