"""The conversational benchmarks a filesystem store is built from: LoCoMo and REALTALK share one shape
(sessions of turns, QA scored by LoCoMo's F1), so a benchmark is just a loader, its ids and its categories.
PersonaMem (multiple choice over a shared context) has its own stage, `tailmem.stages.personamem`."""

from __future__ import annotations

from tailmem.data import locomo, realtalk
from tailmem.data.locomo import Conversation
from tailmem.fsmem.errors import FsmemError

BENCHMARKS = ("locomo", "realtalk")


def check_benchmark(name: str) -> None:
    if name not in BENCHMARKS:
        raise FsmemError(f"fsmem.benchmark: {name!r} is not one of {list(BENCHMARKS)}")


def conversation(fs, benchmark: str, conv_id: str) -> Conversation:
    check_benchmark(benchmark)
    if benchmark == "locomo":
        return locomo.load(fs.data_file, conv_id)
    return realtalk.load(fs.realtalk.data_dir, conv_id)


def conversation_ids(fs, benchmark: str) -> list[str]:
    """The conversations a study runs on: `fsmem.conversations` (LoCoMo) or `fsmem.realtalk.chats` (null = all)."""
    check_benchmark(benchmark)
    if benchmark == "locomo":
        return list(fs.conversations)
    chats = fs.realtalk.get("chats")
    return list(chats) if chats is not None else realtalk.chat_ids(fs.realtalk.data_dir)


def categories(fs, benchmark: str) -> tuple[int, ...]:
    check_benchmark(benchmark)
    return tuple(fs.categories) if benchmark == "locomo" else tuple(fs.realtalk.categories)


def category_names(benchmark: str) -> dict[int, str]:
    check_benchmark(benchmark)
    return {k: v for k, v in locomo.CATEGORIES.items() if k != 5} if benchmark == "locomo" else dict(realtalk.CATEGORIES)
