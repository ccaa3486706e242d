"""The growth atlas on a small agent-curated build, and on a hand-made history with a known create/edit/delete count."""

from tailmem.data import realtalk
from tailmem.fsmem.agents import builder
from tailmem.fsmem.chunks import chunk_conversation
from tailmem.fsmem.growth import atlas
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store, render
from tailmem.fsmem.tools.management import management

REALTALK = "/work/shared/data/realtalk"


def test_known_history(tmp_path):
    store, log = Store(tmp_path / "s"), SnapshotLog(tmp_path / "snaps")
    (store.root / "a.md").write_text(render("a", "# one\n"))
    log.take(store, "chunk_0001")
    (store.root / "b.md").write_text(render("b", "# x\n## y\n"))
    (store.root / "a.md").write_text(render("a", "# one\n# two\n"))
    log.take(store, "chunk_0002")
    (store.root / "a.md").unlink()
    log.take(store, "chunk_0003")
    log.take(store, "final")
    steps, surv = atlas(log, early_fraction=0.34)
    assert [(s.creates, s.edits, s.deletes) for s in steps] == [(1, 0, 0), (1, 1, 0), (0, 0, 1)]
    assert [s.sections for s in steps] == [1, 4, 2] and [s.files for s in steps] == [1, 2, 1]
    assert surv.early_files == 1 and surv.survived == 0 and steps[-1].early_alive == 0.0


def test_atlas_of_a_small_build(tmp_path):
    conv = realtalk.load(REALTALK, "Chat_1_Emi_Elise")
    store, log = Store(tmp_path / "s"), SnapshotLog(tmp_path / "snaps")
    h = management(store)
    chunks = chunk_conversation(conv)[:12]
    for i, c in enumerate(chunks, 1):
        builder.integrate_programmatic(c, h)
        log.take(store, f"chunk_{i:04d}")
    steps, surv = atlas(log)
    assert len(steps) == 12 and steps[0].creates == steps[0].files > 0
    assert all(b.bytes >= a.bytes for a, b in zip(steps, steps[1:]))  # the programmatic builder only appends
    assert sum(s.deletes for s in steps) == 0 and surv.share == 1.0
    assert steps[-1].sections >= steps[0].sections
