"""REALTALK (Lee et al., 2025): 21 days of real messaging between two people, one JSON file per chat, with
LoCoMo-style QA (categories 1 multi-hop, 2 temporal, 3 commonsense/open-domain).

Each chat becomes a LoCoMo `Conversation`, so the filesystem-memory variants, agents and F1 run unchanged.
Session times ("29.12.2023, 22:42:04") are rewritten in LoCoMo's form ("22:42 on 29 December, 2023") because
dated headings and the searcher's date extraction read that form.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from tailmem.data.locomo import QA, Conversation, Session, Turn
from tailmem.data import read_json
from tailmem.errors import DataError

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain"}
_STAMP = "%d.%m.%Y, %H:%M:%S"


def chat_ids(folder: str | Path) -> list[str]:
    """Chat ids (file stems) in numeric order: Chat_1_..., Chat_2_..., ..., Chat_10_..."""
    folder = Path(folder)
    files = sorted(folder.glob("Chat_*.json"), key=lambda p: int(re.match(r"Chat_(\d+)", p.stem).group(1)))
    if not files:
        raise DataError(f"{folder}: no REALTALK chats (Chat_<n>_<a>_<b>.json)")
    return [p.stem for p in files]


def locomo_time(stamp: str) -> str:
    """'29.12.2023, 22:42:04' -> '22:42 on 29 December, 2023'; anything else is kept as it is."""
    try:
        t = datetime.strptime(stamp.strip(), _STAMP)
    except ValueError:
        return stamp
    return f"{t:%H:%M} on {t.day} {t:%B}, {t.year}"


def load(folder: str | Path, chat_id: str) -> Conversation:
    path = Path(folder) / f"{chat_id}.json"
    data = read_json(path, "REALTALK chat not found (fsmem.realtalk.data_dir, chat ids: Chat_1_Emi_Elise, ...)")
    return parse(data, chat_id, path)


def parse(data: dict, chat_id: str, path: Path | str = "?") -> Conversation:
    try:
        names = data["name"]
        speakers = (names["speaker_1"], names["speaker_2"])
        indices = sorted(int(m.group(1)) for k in data if (m := re.fullmatch(r"session_(\d+)", k)))
        sessions = []
        for i in indices:
            raw = data[f"session_{i}"]
            stamp = data.get(f"session_{i}_date_time") or (raw[0].get("date_time", "") if raw else "")
            turns = tuple(Turn(t["dia_id"], t["speaker"], t.get("clean_text", ""), t.get("blip_caption", "") or "")
                          for t in raw)
            sessions.append(Session(i, locomo_time(stamp), turns))
        qa = tuple(QA(q["question"], str(q["answer"]), int(q["category"]), tuple(q.get("evidence", ())))
                   for q in data["qa"])
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"{path}: REALTALK chat {chat_id!r} is malformed (missing or bad {exc})") from exc
    return Conversation(chat_id, speakers, tuple(sessions), qa)
