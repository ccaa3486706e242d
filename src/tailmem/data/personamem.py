"""PersonaMem (Jiang et al., 2025): multiple-choice questions about a user, each answered from a shared
context (a long chat history) read only up to `end_index_in_shared_context`.

Official files per tier (32k, 128k, 1M): `questions_<tier>.csv` (one row per question; `all_options` is a
list of "(a) ..." strings, `correct_answer` is "(c)") and `shared_contexts_<tier>.jsonl` (one JSON object
per line mapping a `shared_context_id` to its list of {"role", "content"} messages). Only questions_32k.csv is
in ../shared/data/personamem; `missing(...)` says what is absent so a stage can skip with a clear message.
"""

from __future__ import annotations

import ast
import csv
import json
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import DataError

LETTERS = "abcdefgh"
COLUMNS = ("question_id", "question_type", "topic", "user_question_or_message", "correct_answer", "all_options",
           "shared_context_id", "end_index_in_shared_context")


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
    return text[len(prefix):].strip()


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
            try:
                raw = _options(row["all_options"])
                answer = row["correct_answer"].strip().strip("()").lower()
                if answer not in LETTERS[: len(raw)]:
                    raise ValueError(f"correct_answer {row['correct_answer']!r}")
                out.append(Question(row["question_id"], row.get("persona_id", ""), row["question_type"], row["topic"],
                                    row["user_question_or_message"], tuple(_option(t, i, path) for i, t in enumerate(raw)),
                                    answer, row["shared_context_id"], int(row["end_index_in_shared_context"])))
            except (ValueError, TypeError, SyntaxError) as exc:
                raise DataError(f"{path}: line {n}: bad row ({exc})") from exc
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
                for cid, msgs in json.loads(line).items():
                    out[cid] = tuple(Message(str(m["role"]), str(m["content"])) for m in msgs)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise DataError(f"{path}: line {n}: expected {{context_id: [{{role, content}}, ...]}} ({exc})") from exc
    return out


def context_for(q: Question, contexts: dict[str, tuple[Message, ...]]) -> tuple[Message, ...]:
    """What the model may see for `q`: the shared context up to `end_index_in_shared_context` (exclusive)."""
    if q.context_id not in contexts:
        raise DataError(f"shared_context_id {q.context_id!r} (question {q.question_id}) is not in the contexts file")
    msgs = contexts[q.context_id]
    if not 0 < q.end_index <= len(msgs):
        raise DataError(f"question {q.question_id}: end_index_in_shared_context {q.end_index} outside 1..{len(msgs)}")
    return msgs[: q.end_index]
