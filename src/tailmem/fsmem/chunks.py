"""Chunks: consecutive turns of one session, at most 8 turns or 3,000 characters. They are both the unit a
management agent integrates per build episode and the documents chunk retrieval ranks."""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.data.locomo import Conversation, Turn


@dataclass(frozen=True)
class Chunk:
    id: str  # e.g. "S03-2": session 3, second chunk
    session: int
    date_time: str
    turns: tuple[Turn, ...]

    def render(self) -> str:
        head = f"Session {self.session} ({self.date_time}), chunk {self.id}"
        return head + "\n" + "\n".join(t.render() for t in self.turns)


def chunk_conversation(conv: Conversation, max_turns: int = 8, max_chars: int = 3000) -> list[Chunk]:
    out: list[Chunk] = []
    for s in conv.sessions:
        part: list[Turn] = []
        size = 0
        n = 0
        for t in s.turns:
            length = len(t.render()) + 1
            if part and (len(part) >= max_turns or size + length > max_chars):
                n += 1
                out.append(Chunk(f"S{s.index:02d}-{n}", s.index, s.date_time, tuple(part)))
                part, size = [], 0
            part.append(t)
            size += length
        if part:
            n += 1
            out.append(Chunk(f"S{s.index:02d}-{n}", s.index, s.date_time, tuple(part)))
    return out
