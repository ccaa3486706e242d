"""LoCoMo (Maharana et al., 2024): conversations of sessions of turns, and QA with categories
1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Benchmark:
    """A benchmark of LoCoMo's shape as its data module declares it (`BENCHMARK`), so that the filesystem-memory
    study runs on it with no branch on its name: `tailmem.fsmem.benchmarks.BENCHMARKS` lists the entries, and the
    config checks, wildcards, studies and tables read them (docs/extending.md)."""

    name: str  # the config value (`fsmem.benchmark`), the path segment and the tables' stem prefix
    label: str  # for prose
    load: Callable[[str, str], Conversation]  # (data location, conversation id) -> the whole conversation
    file: Callable[[str, str], Path]  # the file `load` reads for a conversation (its sha256 goes in meta.json)
    ids: Callable[[str], list[str]]  # every conversation at the data location (a block's `conversations: null`)
    categories: Mapping[int, str]  # the categories scored by F1 and shown as table columns, id -> name
    opt_in: Mapping[int, str] = field(default_factory=dict)  # more a run may list, each scored by its own rule
    own_scorer: bool = False  # F1 is this benchmark's official scorer (else LoCoMo's F1, reused)
    # its (data, conversations, categories) keys under `fsmem`; () = the block `fsmem.benchmarks.<name>`
    keys: tuple[str, ...] = ()


def data_file(path: str | Path, sample_id: str) -> Path:
    """All conversations are in one file."""
    return Path(path)


def sample_ids(path: str | Path) -> list[str]:
    """The conversation ids of the file, in file order (conv-26 ... conv-50)."""
    path = Path(path)
    data = read_json(path, "LoCoMo file not found (set data_dir or fsmem.data_file)")
    return [
        records.text(records.mapping(s, f"{path}: conversation #{i}"), "sample_id", f"{path}")
        for i, s in enumerate(data)
    ]


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


# LoCoMo's block keeps the keys it had before the registry: fsmem.data_file, fsmem.conversations, fsmem.categories.
BENCHMARK = Benchmark(
    name="locomo",
    label="LoCoMo",
    load=load,
    file=data_file,
    ids=sample_ids,
    categories={k: v for k, v in CATEGORIES.items() if k != 5},
    opt_in={5: CATEGORIES[5]},  # adversarial: scored by LoCoMo's own rule when fsmem.categories lists it
    own_scorer=True,
    keys=("data_file", "conversations", "categories"),
)
