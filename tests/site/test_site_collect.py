"""What each study gives the site, pinned: the rows of its list, the notes on what it could not show, and every page
it draws (path, template and the values handed to the template), for sitekit's results tree plus an audited access
log, a file of each kind that cannot be read and runs saved before the stages kept their memory blocks.

The pin is `collected.json` beside this file. It records what the pages are made of, not the templates' HTML, so a
template may change without touching it; a change to what a study collects or draws shows as a diff of that file.
To accept a change on purpose: `TAILMEM_WRITE_COLLECTED=1 python -m pytest tests/site/test_site_collect.py`, then
read the diff before committing it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tailmem.cli import main
from tailmem.records.control import ControlSteps
from tailmem.records.longmemeval import LongMemEvalRows
from tailmem.site.transcripts import Transcripts
from tailmem.site_build import KINDS, _plain

PIN = Path(__file__).with_name("collected.json")
REPO = Path(__file__).resolve().parents[2]
ACCESS_LOG = REPO / "examples" / "access_logs" / "agent_reads.jsonl"
PROVENANCE = re.compile(r'Provenance: .*?(?=\\n|")')  # a table's footer (commit, dirty diff, packages), JSON-quoted
CREATED = re.compile(r"created=[0-9.]+")  # when a call was cached (repr of tailmem.site.transcripts.Call)


class Recorder:
    """A Writer that keeps what it was asked to write: (path, template, digest of the values) per page."""

    def __init__(self, scrub):
        self.scrub = scrub
        self.pages: list[list[str]] = []
        self.copies: list[list[str]] = []

    def write(self, here: str, template: str, **ctx) -> None:
        text = self.scrub(json.dumps(ctx, sort_keys=True, default=repr))
        self.pages.append([here, template, hashlib.sha256(text.encode()).hexdigest()[:16]])

    def write_text(self, here: str, text: str) -> None:
        self.pages.append([here, "-", hashlib.sha256(self.scrub(text).encode()).hexdigest()[:16]])

    def copy(self, src: Path, here: str) -> None:
        self.copies.append([self.scrub(str(src)), here])


def _unreadable_and_old(results: Path) -> None:
    """A damaged file of each kind, a controller arm and a LongMemEval run saved before the blocks were kept, and an
    answer set whose store kept no snapshot."""
    for rel in (
        "fsmem/locomo/conv-99/programmatic/verbatim/answers/center/programmatic/answers.json",
        "longmemeval/oracle/programmatic/seed9/rows.parquet",
        "control/semantic/programmatic/recency/modular/n30/seed9/programmatic/broken/steps.parquet",
        "alfworld/memory/smoke/programmatic-executor/broken/episodes.json",
        "alfworld/skills/smoke/programmatic-executor/b/s/full_chain/broken/chain.json",
        "audit_log/broken/audit.json",
    ):
        path = results / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{not what its record expects")
    run = results / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic"
    old = results / "control/semantic/programmatic/recency/modular/n30/seed1/programmatic/graph_memory-compact"
    steps = ControlSteps.read(run / "graph_memory-compact" / "steps.parquet").frame
    ControlSteps(steps.drop(columns=["memory", "marks"])).write(old / "steps.parquet")
    snapshots = results / "fsmem/locomo/conv-50/programmatic/verbatim"
    no_snapshots = snapshots.with_name("verbatim_store_only")  # a store page read from store/, not a snapshot
    shutil.copytree(snapshots, no_snapshots, ignore=shutil.ignore_patterns("snapshots"))
    lme = results / "longmemeval/oracle/programmatic/seed0/rows.parquet"
    rows = LongMemEvalRows.read(lme).frame
    LongMemEvalRows(pd.DataFrame(rows.drop(columns=["memory", "marks"]))).write(
        results / "longmemeval/oracle/programmatic/seed1/rows.parquet"
    )


@pytest.fixture(scope="module")
def collected(fixture_site, tmp_path_factory) -> dict:
    results, _, cfg = fixture_site[2]
    tree = tmp_path_factory.mktemp("collect") / "results"
    shutil.copytree(results, tree, ignore=shutil.ignore_patterns("site", "site.*"))
    name = "reads"
    code = main(
        ["audit-log", str(ACCESS_LOG), "--format", "jsonl", "--name", name, f"results_dir={tree}", "audit.bootstrap=0"]
    )
    assert code == 0
    _unreadable_and_old(tree)

    def scrub(text: str) -> str:
        """The text without what differs from run to run: where the tree is, the code's state, the cache's clock."""
        text = text.replace(str(tree), "<results>").replace(str(REPO), "<repo>")
        return CREATED.sub("created=<time>", PROVENANCE.sub("Provenance: <code state>", text))

    transcripts = Transcripts(tree / "llm_cache.sqlite")
    out = {}
    for kind in KINDS:
        section = kind.collect(tree, cfg, transcripts)
        writer = Recorder(scrub)
        if section.draw is not None:
            section.draw(writer)
        out[section.key] = {
            "title": section.title,
            "columns": section.columns,
            "filters": [list(f) for f in section.filters],
            "rows": [
                [r.href, [_plain(c) for c in r.cells], {k: str(v) for k, v in r.filters.items()}, scrub(r.text)]
                for r in section.rows
            ],
            "notes": [scrub(n) for n in section.notes],
            "pages": writer.pages,
            "copies": writer.copies,
        }
    return json.loads(json.dumps(out, default=repr))


def test_each_study_collects_what_it_did(collected):
    if os.environ.get("TAILMEM_WRITE_COLLECTED"):
        PIN.write_text(json.dumps(collected, indent=1, sort_keys=True) + "\n")
    assert collected == json.loads(PIN.read_text())


def test_the_pin_covers_every_kind_of_item_and_note(collected):
    """The pin means something only if each study drew pages and each kind of note was taken."""
    assert set(collected) == {"fsmem", "longmemeval", "control", "alfworld", "audit_log"}
    for key, got in collected.items():
        assert got["rows"] and got["pages"], key
        assert any(": unreadable (" in n for n in got["notes"]), key
    assert sum(len(got["notes"]) for got in collected.values()) == 8  # 6 unreadable, 2 saved before blocks
    assert any("re-run stage control" in n for n in collected["control"]["notes"])
    assert any("re-run stage longmemeval" in n for n in collected["longmemeval"]["notes"])
    assert ["<results>/audit_log/reads/ccdf.png", "audit_log/reads_ccdf.png"] in collected["audit_log"]["copies"]
    stores = [page for page, template, _ in collected["fsmem"]["pages"] if template == "store.html"]
    assert len(stores) == 3 and any("verbatim_store_only" in page for page in stores)
