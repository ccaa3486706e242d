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

from tailmem.data import read_json, records
from tailmem.data.locomo import QA, Benchmark, Conversation, Session, Turn
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


def chat_file(folder: str | Path, chat_id: str) -> Path:
    return Path(folder) / f"{chat_id}.json"


def load(folder: str | Path, chat_id: str) -> Conversation:
    path = chat_file(folder, chat_id)
    data = read_json(path, "REALTALK chat not found (fsmem.realtalk.data_dir, chat ids: Chat_1_Emi_Elise, ...)")
    return parse(data, chat_id, path)


def parse(data: dict, chat_id: str, path: Path | str = "?") -> Conversation:
    """One chat; every record is checked (`tailmem.data.records`): a bad one names the file, the chat, the
    session turn or question index, and the field."""
    where = f"{path}: REALTALK chat {chat_id!r}"
    data = records.mapping(data, where)
    names = records.mapping(data.get("name"), f"{where}: field 'name'")
    speakers = (records.text(names, "speaker_1", f"{where}: name"), records.text(names, "speaker_2", f"{where}: name"))
    indices = sorted(int(m.group(1)) for k in data if (m := re.fullmatch(r"session_(\d+)", k)))
    sessions = []
    for i in indices:
        raw = records.items(data, f"session_{i}", where)
        turns = []
        for j, t in enumerate(raw):
            at = f"{where}: session_{i} turn {j}"
            t = records.mapping(t, at)
            turns.append(
                Turn(
                    records.text(t, "dia_id", at),
                    records.text(t, "speaker", at),
                    records.text(t, "clean_text", at, empty=True, default=""),
                    records.optional_text(t, "blip_caption", at),
                )
            )
        stamp = records.optional_text(data, f"session_{i}_date_time", where) or (
            records.optional_text(raw[0], "date_time", f"{where}: session_{i} turn 0") if raw else ""
        )
        sessions.append(Session(i, locomo_time(stamp), tuple(turns)))
    qa = []
    for j, q in enumerate(records.items(data, "qa", where)):
        at = f"{where}: qa[{j}]"
        q = records.mapping(q, at)
        qa.append(
            QA(
                records.text(q, "question", at),
                records.text(q, "answer", at, numbers=True),
                records.integer(q, "category", at, CATEGORIES),
                records.strings(q, "evidence", at),
            )
        )
    return Conversation(chat_id, speakers, tuple(sessions), tuple(qa))


# REALTALK's block keeps the keys it had before the registry: fsmem.realtalk.{data_dir,chats,categories}.
BENCHMARK = Benchmark(
    name="realtalk",
    label="REALTALK",
    load=load,
    file=chat_file,
    ids=chat_ids,
    categories=CATEGORIES,
    keys=("realtalk.data_dir", "realtalk.chats", "realtalk.categories"),
)
