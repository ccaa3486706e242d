"""PersonaMem (Jiang et al., 2025): multiple-choice questions about a user, each answered from a shared
context (a long chat history) read only up to `end_index_in_shared_context`.

Official files per tier (32k, 128k, 1M): `questions_<tier>.csv` (one row per question; `all_options` is a
list of "(a) ..." strings, `correct_answer` is "(c)") and `shared_contexts_<tier>.jsonl` (one JSON object
per line mapping a `shared_context_id` to its list of {"role", "content"} messages). Only questions_32k.csv is
in ../shared/data/personamem; `missing(...)` says what is absent so a stage can skip with a clear message.

`as_conversation` turns a shared context into a LoCoMo `Conversation` (like REALTALK), so every store variant,
agent and harness runs unchanged. Sessions are cut at every distinct end index of the context's questions (and
every `block` messages between), so each question's visible prefix is exactly a run of whole sessions. Locators
keep LoCoMo's `D<session>:<n>` form, which the searcher, reorganizer and audits parse, with `n` the 1-based
number of the message in the whole context: `[D3:45]` is message 45 (0-based index 44).
"""

from __future__ import annotations

import ast
import csv
import json
from dataclasses import dataclass
from pathlib import Path

from tailmem.data.locomo import Conversation, Session, Turn
from tailmem.errors import DataError

LETTERS = "abcdefgh"
SPEAKERS = {"system": "System", "user": "User", "assistant": "Assistant"}  # message role -> turn speaker
COLUMNS = (
    "question_id",
    "question_type",
    "topic",
    "user_question_or_message",
    "correct_answer",
    "all_options",
    "shared_context_id",
    "end_index_in_shared_context",
)


@dataclass(frozen=True)
class Question:
    question_id: str
    persona_id: str
    question_type: str
    topic: str
    question: str
    options: tuple[str, ...]  # option texts without their "(a)" prefix
    answer: str  # the correct letter, e.g. "c"
    context_id: str
    end_index: int  # the model sees messages[:end_index]


@dataclass(frozen=True)
class Message:
    role: str
    content: str


def questions_path(folder: str | Path, tier: str) -> Path:
    return Path(folder) / f"questions_{tier}.csv"


def contexts_path(folder: str | Path, tier: str) -> Path:
    return Path(folder) / f"shared_contexts_{tier}.jsonl"


def missing(folder: str | Path, tier: str) -> list[Path]:
    """The official files of a tier that are not present."""
    return [p for p in (questions_path(folder, tier), contexts_path(folder, tier)) if not p.exists()]


def _option(text: str, i: int, path: Path) -> str:
    text = text.strip()
    prefix = f"({LETTERS[i]})"
    if not text.lower().startswith(prefix):
        raise DataError(f"{path}: option {i + 1} {text[:40]!r} does not start with {prefix!r}")
    return text[len(prefix) :].strip()


def _options(text: str) -> list[str]:
    """`all_options` is a JSON list in most rows and a Python list literal (single quotes) in others."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        raw = ast.literal_eval(text)
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise ValueError("all_options is not a list of strings")
    return raw


def load_questions(path: str | Path) -> list[Question]:
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: PersonaMem questions file not found")
    out = []
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        absent = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if absent:
            raise DataError(f"{path}: missing columns {absent}")
        for n, row in enumerate(reader, 2):
            where = f"{path}: line {n} (question {row.get('question_id')!r})"
            for col in (
                "question_id",
                "question_type",
                "user_question_or_message",
                "shared_context_id",
                "correct_answer",
                "all_options",
                "end_index_in_shared_context",
            ):
                if row.get(col) is None or not row[col].strip():
                    raise DataError(f"{where}: field {col!r}: expected a non-empty value")
            try:
                end = int(row["end_index_in_shared_context"])
            except ValueError:
                raise DataError(
                    f"{where}: field 'end_index_in_shared_context': expected an integer, "
                    f"got {row['end_index_in_shared_context'][:40]!r}"
                ) from None
            if end < 1:
                raise DataError(f"{where}: field 'end_index_in_shared_context': expected >= 1, got {end}")
            try:
                raw = _options(row["all_options"])
            except (ValueError, TypeError, SyntaxError) as exc:
                raise DataError(f"{where}: field 'all_options': {exc}") from exc
            answer = row["correct_answer"].strip().strip("()").lower()
            if answer not in LETTERS[: len(raw)]:
                raise DataError(
                    f"{where}: field 'correct_answer': {row['correct_answer']!r} is not one of the {len(raw)} options"
                )
            out.append(
                Question(
                    row["question_id"],
                    row.get("persona_id") or "",
                    row["question_type"],
                    row.get("topic") or "",
                    row["user_question_or_message"],
                    tuple(_option(t, i, path) for i, t in enumerate(raw)),
                    answer,
                    row["shared_context_id"],
                    end,
                )
            )
    return out


def _messages(line: str) -> dict[str, tuple[Message, ...]]:
    """One jsonl line: {shared_context_id: [{"role": system|user|assistant, "content": str}, ...]}."""
    obj = json.loads(line)
    if not isinstance(obj, dict) or not obj:
        raise ValueError(f"a non-empty JSON object, got {type(obj).__name__}")
    out = {}
    for cid, msgs in obj.items():
        if not isinstance(msgs, list):
            raise ValueError(f"context {cid!r}: a list of messages, got {type(msgs).__name__}")
        for i, m in enumerate(msgs):
            if not isinstance(m, dict) or m.get("role") not in SPEAKERS or not isinstance(m.get("content"), str):
                raise ValueError(
                    f'context {cid!r} message {i}: {{"role": one of {list(SPEAKERS)}, '
                    f'"content": string}}, got {str(m)[:80]!r}'
                )
        out[cid] = tuple(Message(m["role"], m["content"]) for m in msgs)
    return out


def load_contexts(path: str | Path) -> dict[str, tuple[Message, ...]]:
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: PersonaMem shared contexts not found (not distributed with this repository)")
    out: dict[str, tuple[Message, ...]] = {}
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                found = _messages(line)
            except ValueError as exc:  # json.JSONDecodeError is a ValueError
                raise DataError(
                    f"{path}: line {n}: expected one JSON object {{shared_context_id: [{{role, content}}, "
                    f"...]}} per line ({exc})"
                ) from exc
            for cid in found:
                if cid in out:
                    raise DataError(f"{path}: line {n}: shared_context_id {cid!r} appears on an earlier line too")
            out.update(found)
    return out


def context_for(q: Question, contexts: dict[str, tuple[Message, ...]]) -> tuple[Message, ...]:
    """What the model may see for `q`: the shared context up to `end_index_in_shared_context` (exclusive)."""
    if q.context_id not in contexts:
        raise DataError(f"shared_context_id {q.context_id!r} (question {q.question_id}) is not in the contexts file")
    msgs = contexts[q.context_id]
    if not 0 < q.end_index <= len(msgs):
        raise DataError(f"question {q.question_id}: end_index_in_shared_context {q.end_index} outside 1..{len(msgs)}")
    return msgs[: q.end_index]


def cuts(end_indices, block: int) -> list[int]:
    """Session ends (exclusive message counts) up to the last end index: every end index, and at most `block`
    messages apart."""
    if block < 1:
        raise ValueError(f"block must be >= 1, got {block}")
    out, start = [], 0
    for end in sorted(set(int(e) for e in end_indices)):
        while end - start > block:
            start += block
            out.append(start)
        out.append(end)
        start = end
    return out


def as_conversation(context_id: str, messages, end_indices, block: int) -> Conversation:
    """The context up to its last end index as sessions of turns cut at `cuts(end_indices, block)`; later
    messages, which no question may see, are left out. Each session's `date_time` names its message range
    (PersonaMem has no timestamps), and whitespace inside a message is collapsed so every turn is one line."""
    sessions, start = [], 0
    for s, end in enumerate(cuts(end_indices, block), 1):
        if end > len(messages):
            raise DataError(
                f"context {context_id!r}: end_index_in_shared_context {end} is past its {len(messages)} messages"
            )
        turns = tuple(
            Turn(f"D{s}:{n + 1}", SPEAKERS[m.role], " ".join(m.content.split()))
            for n, m in enumerate(messages[start:end], start)
        )
        sessions.append(Session(s, f"messages {start + 1}-{end}", turns))
        start = end
    return Conversation(context_id, (SPEAKERS["user"], SPEAKERS["assistant"]), tuple(sessions), ())


def message_number(turn: Turn) -> int:
    """The 1-based number of a turn's message in its context (from the `D<session>:<n>` locator)."""
    return int(turn.dia_id.rsplit(":", 1)[1])


def prefix(conv: Conversation, end: int) -> Conversation:
    """The sessions holding exactly messages[:end]; `end` must be a session end of `conv`."""
    kept = tuple(s for s in conv.sessions if s.turns and message_number(s.turns[-1]) <= end)
    last = message_number(kept[-1].turns[-1]) if kept else 0
    if last != end:
        raise DataError(
            f"context {conv.sample_id!r}: {end} is not a session end (sessions end at "
            f"{[message_number(s.turns[-1]) for s in conv.sessions if s.turns]})"
        )
    return Conversation(conv.sample_id, conv.speakers, kept, conv.qa)
