"""The conversational benchmarks a filesystem store is built from, declared once. LoCoMo and REALTALK share one
shape (sessions of turns, QA scored by LoCoMo's F1), so a benchmark is one `Benchmark` entry, declared next to its
loader in `tailmem.data.<name>`: how to load a conversation, its ids, its categories and where its config block is.
Everything else reads this table: the config checks of `fsmem.benchmark` and `fsmem.study.*benchmarks`, the
Snakemake wildcard `bench` (`tailmem.workflow.wildcard_patterns`), the studies and the tables (docs/extending.md).
PersonaMem (multiple choice over a shared context) has its own stage, `tailmem.studies.fsmem.personamem`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from tailmem.data import locomo, realtalk
from tailmem.data.locomo import Benchmark, Conversation
from tailmem.fsmem.errors import FsmemError

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (locomo.BENCHMARK, realtalk.BENCHMARK)}
MAIN_BENCHMARK = locomo.BENCHMARK.name  # paper 2's main table (one per `fsmem.conversations`) and its Table 13
BLOCK = ("data", "conversations", "categories")  # the keys of a block `fsmem.benchmarks.<name>`
_ABSENT = object()


def check_benchmark(name: str) -> None:
    if name not in BENCHMARKS:
        raise FsmemError(f"fsmem.benchmark: {name!r} is not one of {list(BENCHMARKS)}")


def entry(name: str) -> Benchmark:
    check_benchmark(name)
    return BENCHMARKS[name]


def block_keys(name: str) -> tuple[str, ...]:
    """The benchmark's (data, conversations, categories) keys under `fsmem`: its entry's `keys`, else its block
    in the open mapping `fsmem.benchmarks` (so a new benchmark needs no settings dataclass)."""
    b = entry(name)
    return b.keys or tuple(f"benchmarks.{name}.{k}" for k in BLOCK)


def setting(fs, name: str, key: str):
    """One value of the benchmark's block (`key` one of BLOCK); an absent key names where it belongs."""
    dotted = block_keys(name)[BLOCK.index(key)]
    value = fs
    for part in dotted.split("."):  # a typed group (dataclasses, and dicts for open mappings) or a DictConfig
        value = value.get(part, _ABSENT) if isinstance(value, Mapping) else getattr(value, part, _ABSENT)
        if value is _ABSENT:
            break
    if value is _ABSENT:
        raise FsmemError(f"fsmem.{dotted}: not set (benchmark {name!r}'s block; configs/fsmem/default.yaml)")
    return value


def conversation_file(fs, benchmark: str, conv_id: str) -> Path:
    """The data file `conversation` reads for a conversation (its sha256 goes in meta.json)."""
    return entry(benchmark).file(setting(fs, benchmark, "data"), conv_id)


def full_conversation(fs, benchmark: str, conv_id: str) -> Conversation:
    """The conversation with every session and question of the file, whatever `fsmem.max_sessions` cuts."""
    return entry(benchmark).load(setting(fs, benchmark, "data"), conv_id)


def conversation(fs, benchmark: str, conv_id: str) -> Conversation:
    """The conversation as the study sees it: its first `fsmem.max_sessions` sessions (null: all) and only the
    questions whose evidence lies entirely in them, so every variant is built from and asked about the same part."""
    return first_sessions(full_conversation(fs, benchmark, conv_id), fs.max_sessions)


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
    """The conversations a study runs on: the block's `conversations` (LoCoMo: `fsmem.conversations`, REALTALK:
    `fsmem.realtalk.chats`); null = every conversation at the data location."""
    ids = setting(fs, benchmark, "conversations")
    return list(ids) if ids is not None else entry(benchmark).ids(setting(fs, benchmark, "data"))


def categories(fs, benchmark: str) -> tuple[int, ...]:
    """The categories a run asks (LoCoMo: `fsmem.categories`, REALTALK: `fsmem.realtalk.categories`)."""
    return tuple(setting(fs, benchmark, "categories"))


def category_names(benchmark: str) -> dict[int, str]:
    """The categories scored by F1, the tables' columns (LoCoMo's 5 is opt-in: `opt_in_names`)."""
    return dict(entry(benchmark).categories)


def opt_in_names(benchmark: str) -> dict[int, str]:
    """Categories a run may add to the scored ones, each with the benchmark's own rule (LoCoMo's 5, adversarial)."""
    return dict(entry(benchmark).opt_in)


def allowed_categories(benchmark: str) -> list[int]:
    """Every category a run may list: the scored ones, then the opt-in ones."""
    return list(category_names(benchmark)) + list(opt_in_names(benchmark))
