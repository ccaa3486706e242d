"""The conversational benchmarks a filesystem store is built from: LoCoMo and REALTALK share one shape
(sessions of turns, QA scored by LoCoMo's F1), so a benchmark is just a loader, its ids and its categories.
PersonaMem (multiple choice over a shared context) has its own stage, `tailmem.stages.personamem`."""

from __future__ import annotations

import re
from dataclasses import replace

from tailmem.data import locomo, realtalk
from tailmem.data.locomo import Conversation
from tailmem.fsmem.errors import FsmemError

BENCHMARKS = ("locomo", "realtalk")


def check_benchmark(name: str) -> None:
    if name not in BENCHMARKS:
        raise FsmemError(f"fsmem.benchmark: {name!r} is not one of {list(BENCHMARKS)}")


def conversation(fs, benchmark: str, conv_id: str) -> Conversation:
    """The conversation as the study sees it: its first `fsmem.max_sessions` sessions (null: all) and only the
    questions whose evidence lies entirely in them, so every variant is built from and asked about the same part."""
    check_benchmark(benchmark)
    if benchmark == "locomo":
        conv = locomo.load(fs.data_file, conv_id)
    else:
        conv = realtalk.load(fs.realtalk.data_dir, conv_id)
    return first_sessions(conv, fs.max_sessions)


def evidence_sessions(evidence) -> set[int]:
    """The session numbers an evidence list names (`D3:1` -> 3; LoCoMo has a few entries like `D8:6; D9:17`)."""
    return {int(m) for e in evidence for m in re.findall(r"D(\d+):", str(e))}


def first_sessions(conv: Conversation, n: int | None) -> Conversation:
    """The first `n` sessions (None: the conversation unchanged) and the questions answerable from them: those
    whose evidence names at least one session, all of them kept (a question without evidence is dropped)."""
    if n is None:
        return conv
    if int(n) < 1:
        raise FsmemError(f"fsmem.max_sessions: expected null or >= 1, got {n}")
    kept = conv.sessions[: int(n)]
    have = {s.index for s in kept}
    qa = tuple(q for q in conv.qa if (ev := evidence_sessions(q.evidence)) and ev <= have)
    return replace(conv, sessions=kept, qa=qa)


def conversation_ids(fs, benchmark: str) -> list[str]:
    """The conversations a study runs on: `fsmem.conversations` (LoCoMo) or `fsmem.realtalk.chats` (null = all)."""
    check_benchmark(benchmark)
    if benchmark == "locomo":
        return list(fs.conversations)
    chats = fs.realtalk.chats
    return list(chats) if chats is not None else realtalk.chat_ids(fs.realtalk.data_dir)


def categories(fs, benchmark: str) -> tuple[int, ...]:
    check_benchmark(benchmark)
    return tuple(fs.categories) if benchmark == "locomo" else tuple(fs.realtalk.categories)


def category_names(benchmark: str) -> dict[int, str]:
    check_benchmark(benchmark)
    return (
        {k: v for k, v in locomo.CATEGORIES.items() if k != 5} if benchmark == "locomo" else dict(realtalk.CATEGORIES)
    )
