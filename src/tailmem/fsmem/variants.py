"""The store variants of the LoCoMo study, each built from one conversation through a build harness
(`fsmem.build_harness`, one of `tailmem.fsmem.harnesses`), and the search harness each is read with.

closed_book: empty store, no tools.  chunk_retrieval: BM25 top-3 over chunks (the chunk files are kept for
citations).  verbatim: one file per session.  foldered: the same files, byte-identical, in topic folders.
reorganized_condense / reorganized_preserve: the verbatim store rewritten in place.  agent_curated: the
management agent integrates the conversation one chunk per episode, with a snapshot after each.
"""

from __future__ import annotations

from tailmem.data.locomo import Conversation, Session
from tailmem.fsmem.agents import builder, reorganizer
from tailmem.fsmem.agents.accounting import Episode, Meter
from tailmem.fsmem.chunks import chunk_conversation
from tailmem.fsmem.dates import day_of, session_heading
from tailmem.fsmem.errors import FsmemError
from tailmem.fsmem.harnesses import MAIN_HARNESS, spec
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.base import Harness
from tailmem.fsmem.tools.chunks import chunk_retrieval
from tailmem.fsmem.tools.management import management
from tailmem.fsmem.topics import dominant_topic
from tailmem.roles import BUILDER
from tailmem.settings.fsmem import VARIANTS  # the variants `fsmem.variant(s)` accept, named by the group's schema

CURATED = ("reorganized_condense", "reorganized_preserve", "agent_curated")


def check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise FsmemError(f"fsmem.variant: {variant!r} is not one of {list(VARIANTS)}")


def _session_file(s: Session, speakers: tuple[str, str]) -> tuple[str, str, str]:
    desc = f"Session {s.index} between {speakers[0]} and {speakers[1]} on {day_of(s.date_time)}, verbatim"
    body = f"# {session_heading(s.index, s.date_time)}\n" + "\n".join(t.render() for t in s.turns) + "\n"
    return f"session_{s.index:02d}.md", desc, body


def _write_sessions(conv: Conversation, h: Harness, folders: bool) -> Episode:
    meter = Meter(BUILDER, builder.AGENT, h)
    meter.rounds += 1
    for s in conv.sessions:
        name, desc, body = _session_file(s, conv.speakers)
        path = f"{dominant_topic(body)}/{name}" if folders else name
        builder.create_file(h, path, desc, body)
    return meter.close()


def build_harness_name(fs, build_harness: str | None = None) -> str:
    """The build harness a build uses: the argument, else `fsmem.build_harness`, else the main harness."""
    name = build_harness or fs.build_harness or MAIN_HARNESS
    spec(name, "fsmem.build_harness")  # an unknown name fails here, naming the key
    return name


def build(
    variant: str,
    conv: Conversation,
    store: Store,
    snaps: SnapshotLog,
    fs,
    client=None,
    build_harness: str | None = None,
) -> list[Episode]:
    """Build `variant`'s store for `conv` into `store` through the build harness (`build_harness_name`);
    returns the build episodes (one per chunk or pass). The programmatic reorganizer uses the management
    tools whatever the harness (see `tailmem.fsmem.agents.reorganizer`)."""
    check_variant(variant)
    h = spec(build_harness_name(fs, build_harness)).open_build(store, fs)
    episodes: list[Episode] = []
    try:
        if variant == "chunk_retrieval":
            meter = Meter(BUILDER, builder.AGENT, h)
            meter.rounds += 1
            for c in chunk_conversation(conv, fs.chunk.max_turns, fs.chunk.max_chars):
                builder.create_file(h, f"chunks/{c.id}.md", f"Chunk {c.id} of session {c.session}", c.render() + "\n")
            episodes.append(meter.close())
        elif variant in ("verbatim", "foldered") or variant.startswith("reorganized"):
            episodes.append(_write_sessions(conv, h, folders=variant == "foldered"))
            if variant.startswith("reorganized"):
                snaps.take(store, "verbatim")
                mode = variant.split("_", 1)[1]
                files = store.files()
                if client is None:
                    episodes.append(reorganizer.reorganize_programmatic(management(store), mode, files))
                else:
                    episodes += reorganizer.reorganize_model(
                        client, h, mode, fs.rounds.build, fs.rounds.reorganize_passes
                    )
        elif variant == "agent_curated":
            known: dict[str, str] = {}
            for i, c in enumerate(chunk_conversation(conv, fs.chunk.max_turns, fs.chunk.max_chars), 1):
                if client is None:
                    episodes.append(builder.integrate_programmatic(c, h, known))
                else:
                    episodes.append(builder.integrate_model(client, c, h, fs.rounds.build))
                snaps.take(store, f"chunk_{i:04d}")
    finally:
        h.close()
    snaps.take(store, "final")
    return episodes


def search_harness(variant: str, store: Store, conv: Conversation, fs) -> tuple[Harness, str, int]:
    """The harness a variant is searched with, the search prompt's form, and the round cap."""
    check_variant(variant)
    cap = fs.rounds.search_curated if variant in CURATED else fs.rounds.search_other
    if variant == "closed_book":
        return Harness("none"), "closed_book", 1
    if variant == "chunk_retrieval":
        chunks = chunk_conversation(conv, fs.chunk.max_turns, fs.chunk.max_chars)
        return chunk_retrieval(chunks, fs.retrieval_k), "chunks", cap
    return spec(fs.harness).open_search(store, fs), "filesystem", cap
