"""LoCoMo (Maharana et al., 2024): conversations of sessions of turns, and QA with categories
1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tailmem.data import read_json
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
    try:
        conv = sample["conversation"]
        speakers = (conv["speaker_a"], conv["speaker_b"])
        indices = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        sessions = tuple(
            Session(i, conv.get(f"session_{i}_date_time", ""),
                    tuple(Turn(t["dia_id"], t["speaker"], t["text"], t.get("blip_caption", "") or "") for t in conv[f"session_{i}"]))
            for i in indices
        )
        qa = tuple(
            QA(q["question"], str(q.get("answer", q.get("adversarial_answer", ""))), int(q["category"]), tuple(q.get("evidence", ())))
            for q in sample["qa"]
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"{path}: conversation {sample.get('sample_id')!r} is malformed (missing {exc})") from exc
    return Conversation(sample["sample_id"], speakers, sessions, qa)


def questions(conv: Conversation, categories=(1, 2, 3, 4), limit: int | None = None) -> list[QA]:
    """The non-adversarial questions in file order (158 for conv-50), optionally the first `limit`."""
    qs = [q for q in conv.qa if q.category in set(categories)]
    return qs[:limit] if limit is not None else qs
