"""Prefix-exact PersonaMem stores: every question is answered over a store built from exactly the messages it may
see (messages[:end_index_in_shared_context]), never one more.

Per (variant, context), under `folder`: `snapshots/` (content-addressed, one label `upto_<end>` per distinct end
index) and `build.json`, written last, whose `key` fingerprints the messages, the cut, the builder and the settings,
so a matching build is reused rather than rebuilt (a context is built once, not once per question). The dumps
(closed_book, chunk_retrieval, verbatim, foldered) and the reorganized stores are built from each prefix alone;
files a longer prefix leaves unchanged cost nothing twice in the snapshot store. agent_curated is built once over
the longest prefix with a snapshot per chunk, and `upto_<end>` is the snapshot after the chunk that ends at message
`end`: sessions are cut at every end index (`data.personamem.cuts`) and chunks never cross sessions, so one does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from tailmem.data.locomo import Conversation
from tailmem.data.personamem import message_number, prefix
from tailmem.fsmem.agents.accounting import dollars
from tailmem.fsmem.agents.models import label as agent_label
from tailmem.fsmem.chunks import chunk_conversation
from tailmem.fsmem.errors import FsmemError
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store
from tailmem.fsmem.variants import build as build_variant
from tailmem.fsmem.variants import build_harness_name
from tailmem.records.fsmem import PersonaMemBuild
from tailmem.roles import BUILDER

BUILD_FILE = "build.json"
PER_PREFIX = ("closed_book", "chunk_retrieval", "verbatim", "foldered", "reorganized_condense", "reorganized_preserve")


def upto(end: int) -> str:
    """The snapshot label of the store a question with this end index is answered over."""
    return f"upto_{end:06d}"


def build_key(variant: str, conv: Conversation, ends: list[int], fs, agent: str) -> str:
    """What a build depends on: the turns it may read, the prefixes, the builder and the build settings."""
    h = hashlib.sha256()
    h.update(
        json.dumps(
            {
                "variant": variant,
                "agent": agent,
                "ends": ends,
                "build_harness": build_harness_name(fs),
                "chunk": [int(fs.chunk.max_turns), int(fs.chunk.max_chars)],
                "rounds": [int(fs.rounds.build), int(fs.rounds.reorganize_passes)],
            }
        ).encode()
    )
    for s in conv.sessions:
        h.update(f"\x00{s.index}\x00{s.date_time}".encode())
        for t in s.turns:
            h.update(f"\x01{t.render()}".encode())
    return h.hexdigest()


def _chunk_labels(conv: Conversation, fs) -> dict[int, str]:
    """Last message number of each chunk -> the snapshot label variants.build takes after it."""
    chunks = chunk_conversation(conv, fs.chunk.max_turns, fs.chunk.max_chars)
    return {message_number(c.turns[-1]): f"chunk_{i:04d}" for i, c in enumerate(chunks, 1)}


def build_context(
    variant: str, conv: Conversation, ends: list[int], folder: str | Path, fs, client=None, prices: dict | None = None
) -> PersonaMemBuild:
    """Build (or reuse) the stores of one context for `variant`, one per end index; returns the build record."""
    folder, ends = Path(folder), sorted(set(int(e) for e in ends))
    agent = agent_label(client, BUILDER)
    key = build_key(variant, conv, ends, fs, agent)
    record_path = folder / BUILD_FILE
    cached = PersonaMemBuild.read_cache(record_path)
    if cached is not None and cached.key == key:
        return cached
    record_path.unlink(missing_ok=True)
    shutil.rmtree(folder / "snapshots", ignore_errors=True)
    snaps = SnapshotLog(folder / "snapshots")
    episodes = []
    with tempfile.TemporaryDirectory(prefix="personamem_build_") as tmp:
        tmp = Path(tmp)
        if variant == "agent_curated":
            episodes += build_variant(variant, conv, Store(tmp / "store"), snaps, fs, client)
            labels = _chunk_labels(conv, fs)
            for end in ends:
                if end not in labels or labels[end] not in snaps.labels():
                    raise FsmemError(
                        f"{folder}: no agent_curated snapshot ends at message {end} "
                        f"(chunk ends: {sorted(labels)}; snapshots: {snaps.labels()[:5]}...)"
                    )
                snaps.alias(labels[end], upto(end))
        elif variant in PER_PREFIX:
            for end in ends:
                work = tmp / f"prefix_{end}"
                store = Store(work / "store")
                episodes += build_variant(
                    variant, prefix(conv, end), store, SnapshotLog(work / "snapshots"), fs, client
                )
                snaps.take(store, upto(end))
                shutil.rmtree(work)
        else:
            raise FsmemError(
                f"fsmem.personamem.variants: {variant!r} is not one of {list(PER_PREFIX) + ['agent_curated']}"
            )
        stores = {str(end): snaps.restore(upto(end), tmp / f"restored_{end}").stats() for end in ends}
    record = PersonaMemBuild(
        key=key,
        variant=variant,
        context=conv.sample_id,
        agent=agent,
        build_harness=build_harness_name(fs),
        ends=ends,
        stores=stores,
        episodes=[e.to_json() for e in episodes],
        tool_calls=sum(e.tool_calls for e in episodes),
        tokens=sum(e.prompt_tokens + e.completion_tokens for e in episodes),
        dollars=sum(dollars(e, prices) for e in episodes),
    )
    record.write(record_path)
    return record


def open_store(folder: str | Path, end: int, dest: str | Path) -> Store:
    """The store a question with end index `end` is answered over, materialised at `dest`."""
    return SnapshotLog(Path(folder) / "snapshots").restore(upto(end), dest)
