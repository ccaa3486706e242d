"""LoCoMo (Maharana et al., 2024): conversations of sessions of turns, and QA with categories
1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tailmem.data import read_json, records
from tailmem.errors import DataError

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


@dataclass(frozen=True)
class Turn:
    dia_id: str  # source locator, e.g. "D3:1" = session 3, turn 1
    speaker: str
    text: str
    caption: str = ""  # BLIP caption of a shared image, if any

    def render(self) -> str:
        image = f" [shares an image: {self.caption}]" if self.caption else ""
        return f"[{self.dia_id}] {self.speaker}: {self.text}{image}"


@dataclass(frozen=True)
class Session:
    index: int
    date_time: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class QA:
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    qa: tuple[QA, ...]


def load(path: str | Path, sample_id: str) -> Conversation:
    path = Path(path)
    data = read_json(path, "LoCoMo file not found (set data_dir or fsmem.data_file)")
    found = [s for s in data if s.get("sample_id") == sample_id]
    if not found:
        raise DataError(f"{path}: no conversation {sample_id!r}; have {[s.get('sample_id') for s in data]}")
    return parse(found[0], path)


def parse(sample: dict, path: Path | str = "?") -> Conversation:
    """One conversation; every record is checked (`tailmem.data.records`): a bad one names the file, the
    conversation, the session turn or question index, and the field."""
    top = records.mapping(sample, f"{path}: conversation #?")
    sample_id = records.text(top, "sample_id", f"{path}: conversation")
    where = f"{path}: conversation {sample_id!r}"
    conv = records.mapping(top.get("conversation"), f"{where}: field 'conversation'")
    speakers = (records.text(conv, "speaker_a", where), records.text(conv, "speaker_b", where))
    indices = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    sessions = []
    for i in indices:
        date = records.optional_text(conv, f"session_{i}_date_time", where)
        turns = []
        for j, t in enumerate(records.items(conv, f"session_{i}", where)):
            at = f"{where}: session_{i} turn {j}"
            t = records.mapping(t, at)
            turns.append(
                Turn(
                    records.text(t, "dia_id", at),
                    records.text(t, "speaker", at),
                    records.text(t, "text", at, empty=True),
                    records.optional_text(t, "blip_caption", at),
                )
            )
        sessions.append(Session(i, date, tuple(turns)))
    qa = []
    for j, q in enumerate(records.items(top, "qa", where)):
        at = f"{where}: qa[{j}]"
        q = records.mapping(q, at)
        category = records.integer(q, "category", at, CATEGORIES)
        # adversarial questions (category 5) carry `adversarial_answer` instead of `answer`
        key = "answer" if "answer" in q or category != 5 else "adversarial_answer"
        qa.append(
            QA(
                records.text(q, "question", at),
                records.text(q, key, at, numbers=True),
                category,
                records.strings(q, "evidence", at),
            )
        )
    return Conversation(sample_id, speakers, tuple(sessions), tuple(qa))


def questions(conv: Conversation, categories=(1, 2, 3, 4), limit: int | None = None) -> list[QA]:
    """The non-adversarial questions in file order (158 for conv-50), optionally the first `limit`."""
    qs = [q for q in conv.qa if q.category in set(categories)]
    return qs[:limit] if limit is not None else qs
