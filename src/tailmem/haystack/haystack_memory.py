"""One question's haystack as controller memory: session granularity, one item per session, turns as its facts.

Why sessions: LongMemEval's answer labels and its recall metric are per session, and a session is the unit a
chat memory stores; turns are the facts inside it, the unit a controller keeps or cuts. An item's facts are
listed most relevant turn first (BM25 against the question, ties in turn order), each tagged with its turn
number, so CTMC's partial items keep what the question is about and a reader can still restore the order.
The history (what Full History replays) is every turn in haystack order, one record per turn.

`turn_words` (`longmemeval.turn_words`, None = whole turns) keeps only the first words of each turn, marked ` ...`:
a LongMemEval session is about 3,000 tokens (assistant turns run to 350 words), so whole sessions leave a model
with a context of a few thousand tokens nothing to choose between. The clipped turn is what the store holds, and
what evidence coverage looks for (`metrics.evidence_coverage`).
"""

from __future__ import annotations

import re

from tailmem.data.longmemeval import Question, Session
from tailmem.haystack.retrieval import Ranking
from tailmem.memory import MemoryItem, MemoryStore, StepRecord

_SPACE = re.compile(r"\s+")
SUMMARY_WORDS = 16


CLIPPED = " ..."


def flat(text: str) -> str:
    """Whitespace collapsed: one turn is one line of a memory block."""
    return _SPACE.sub(" ", text).strip()


def clip(text: str, words: int | None = None) -> str:
    """`text` flattened, cut to its first `words` words (marked ` ...`) when it is longer; None = whole."""
    text = flat(text)
    if words is None:
        return text
    parts = text.split(" ")
    return text if len(parts) <= words else " ".join(parts[:words]) + CLIPPED


def turn_line(turn, t: int, encoding: str, words: int | None = None) -> str:
    if encoding == "verbose":
        return f"  [turn {t}] {turn.role}: {clip(turn.content, words)}"
    return f"  {t}{turn.role[:1].upper()}: {clip(turn.content, words)}"


def header(k: int, session: Session, encoding: str) -> str:
    return f"Session {k} on {session.date}:" if encoding == "verbose" else f"S{k} {session.date}"


def summary(k: int, session: Session) -> str:
    """The session in one line: its date and the start of its first user turn (what the chat was about)."""
    first = next(
        (t.content for t in session.turns if t.role == "user"), session.turns[0].content if session.turns else ""
    )
    words = flat(first).split()
    gist = " ".join(words[:SUMMARY_WORDS]) + (" ..." if len(words) > SUMMARY_WORDS else "")
    return f"S{k} {session.date} ({len(session.turns)} turns): {gist}"


def item(k: int, session: Session, turn_scores, turn_words: int | None = None) -> MemoryItem:
    order = sorted(range(len(session.turns)), key=lambda t: (-turn_scores[t], t))
    return MemoryItem(
        id=k,
        verbose=(header(k, session, "verbose"),)
        + tuple(turn_line(session.turns[t], t, "verbose", turn_words) for t in order),
        compact=(header(k, session, "compact"),)
        + tuple(turn_line(session.turns[t], t, "compact", turn_words) for t in order),
        summary=summary(k, session),
    )


def build_store(
    question: Question, sessions: tuple[Session, ...], ranking: Ranking, turn_words: int | None = None
) -> MemoryStore:
    """Items by session position in `sessions` (the seed's haystack order); history in chronological order;
    turns cut to `turn_words` words (None = whole)."""
    store = MemoryStore()
    for k, session in enumerate(sessions):
        store.put(item(k, session, ranking.turn_scores[k], turn_words))
    step = 0
    for k in sorted(range(len(sessions)), key=lambda k: (sessions[k].date, k)):
        for t, turn in enumerate(sessions[k].turns):
            store.record(
                StepRecord(
                    step=step,
                    verbose=f"Session {k} on {sessions[k].date}, turn {t}, {turn.role}: {clip(turn.content, turn_words)}",
                    compact=f"S{k} {sessions[k].date} {t}{turn.role[:1].upper()}: {clip(turn.content, turn_words)}",
                    item_ids=(k,),
                )
            )
            step += 1
    return store
