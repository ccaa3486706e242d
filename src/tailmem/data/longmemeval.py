"""LongMemEval (Wu et al., 2025): questions over a haystack of chat sessions between a user and an assistant.

One file (oracle, S or M) is a JSON list of question instances; each carries its own haystack. Turns that hold
the answer are flagged `has_answer` (the evidence coverage of DESIGN.md section 4 checks those); question ids
ending in `_abs` are abstention questions, whose right answer is that the haystack does not say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tailmem.data import read_json, records
from tailmem.errors import DataError

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
)
_FIELDS = (
    "question_id",
    "question_type",
    "question",
    "question_date",
    "answer",
    "answer_session_ids",
    "haystack_dates",
    "haystack_session_ids",
    "haystack_sessions",
)


@dataclass(frozen=True)
class Turn:
    role: str  # "user" | "assistant"
    content: str
    has_answer: bool = False


@dataclass(frozen=True)
class Session:
    id: str
    date: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    qid: str
    qtype: str
    question: str
    date: str
    answer: str
    answer_session_ids: tuple[str, ...]
    sessions: tuple[Session, ...]  # the haystack, in file order

    @property
    def abstention(self) -> bool:
        return self.qid.endswith("_abs")

    @property
    def evidence(self) -> tuple[tuple[int, int], ...]:
        """(session index, turn index) of every answer-bearing turn."""
        return tuple(
            (s, t) for s, sess in enumerate(self.sessions) for t, turn in enumerate(sess.turns) if turn.has_answer
        )


def load(path: str | Path) -> list[Question]:
    """Every question of a LongMemEval file; a malformed instance names the file and its question id."""
    path = Path(path)
    data = read_json(path, "LongMemEval file not found (set data_dir or longmemeval.files)")
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of question instances, got {type(data).__name__}")
    return [parse(item, path, i) for i, item in enumerate(data)]


def parse(item: dict, path: str | Path = "?", index: int = 0) -> Question:
    """One instance; every problem is reported with the file, the question id and the field."""
    qid = item.get("question_id", f"#{index}") if isinstance(item, dict) else f"#{index}"
    where = f"{path}: question {qid!r}"
    if not isinstance(item, dict):
        raise DataError(f"{where}: expected an object, got {type(item).__name__}")
    missing = [f for f in _FIELDS if f not in item]
    if missing:
        raise DataError(f"{where}: missing field {missing[0]!r}; expected {list(_FIELDS)}")
    if item["question_type"] not in QUESTION_TYPES:
        raise DataError(f"{where}: question_type {item['question_type']!r}; expected one of {list(QUESTION_TYPES)}")
    ids, dates, raw = item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"]
    if not (
        isinstance(raw, list)
        and isinstance(ids, list)
        and isinstance(dates, list)
        and len(ids) == len(dates) == len(raw)
    ):
        raise DataError(
            f"{where}: haystack_session_ids, haystack_dates and haystack_sessions must be lists of one length"
        )
    ids = records.strings(item, "haystack_session_ids", where, required=True)
    dates = records.strings(item, "haystack_dates", where, required=True)
    sessions = []
    for k, (sid, date, turns) in enumerate(zip(ids, dates, raw)):
        at = f"{where}: haystack_sessions[{k}] ({sid!r})"
        if not isinstance(turns, list):
            raise DataError(f"{at}: expected a list of turns, got {type(turns).__name__}")
        parsed = []
        for j, t in enumerate(turns):
            tw = f"{where}: session {sid!r} has a turn without a valid field (haystack_sessions[{k}] turn {j})"
            t = records.mapping(t, tw)
            role = records.text(t, "role", tw)
            if role not in ("user", "assistant"):
                raise DataError(f"{tw}: field 'role': expected 'user' or 'assistant', got {role[:40]!r}")
            has = t.get("has_answer", False)
            if not isinstance(has, bool):
                raise DataError(f"{tw}: field 'has_answer': expected true or false, got {type(has).__name__}")
            parsed.append(Turn(role, records.text(t, "content", tw, empty=True), has))
        sessions.append(Session(sid, date, tuple(parsed)))
    return Question(
        qid=records.text(item, "question_id", where),
        qtype=item["question_type"],
        question=records.text(item, "question", where),
        date=records.text(item, "question_date", where),
        answer=records.text(item, "answer", where, numbers=True),
        answer_session_ids=records.strings(item, "answer_session_ids", where, required=True),
        sessions=tuple(sessions),
    )


def select(questions: Sequence[Question], max_per_type: int | None = None) -> list[Question]:
    """The first `max_per_type` questions of each type in question-id order (all when None): a stratified subset."""
    ordered = sorted(questions, key=lambda q: q.qid)
    if max_per_type is None:
        return ordered
    taken: dict[str, int] = {}
    out = []
    for q in ordered:
        if taken.get(q.qtype, 0) < max_per_type:
            taken[q.qtype] = taken.get(q.qtype, 0) + 1
            out.append(q)
    return out
