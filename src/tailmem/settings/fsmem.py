"""The `fsmem` group (paper 2): the benchmark, the store variants, the harnesses, the model's rounds, the studies.

The benchmarks and the harnesses are registries a new entry joins with no settings edit (docs/extending.md): the
names they accept, a benchmark's categories and its block are checked against them by tailmem.fsmem.group, which
runs where the composed config is checked whole (tailmem.validation), since the registries sit above the settings.
The store variants are a fixed list, named here and read by the builders (tailmem.fsmem.variants).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems, string_problem

ACCESS_UNITS = ("file", "section")  # stages.fsmem_access.UNITS (a test keeps the two equal)
PERSONAMEM_TIERS = ("32k", "128k", "1M")  # data.personamem: the official tiers
# the store variants `fsmem.variant(s)` name, each built by tailmem.fsmem.variants
VARIANTS = (
    "closed_book",
    "chunk_retrieval",
    "verbatim",
    "foldered",
    "reorganized_condense",
    "reorganized_preserve",
    "agent_curated",
)


def _positive(p: Problems, obj, names) -> None:
    for name in names:
        p.integer(name, getattr(obj, name), lo=1)


@dataclass
class Chunk:
    max_turns: int = MISSING
    max_chars: int = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.chunk")
        _positive(p, self, ("max_turns", "max_chars"))
        p.raise_any()


@dataclass
class Rounds:
    build: int = MISSING
    search_curated: int = MISSING
    search_other: int = MISSING
    reorganize_passes: int = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.rounds")
        _positive(p, self, ("build", "search_curated", "search_other", "reorganize_passes"))
        p.raise_any()


@dataclass
class Shell:
    timeout_s: float = MISSING
    max_output_chars: int = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.shell")
        p.number("timeout_s", self.timeout_s, lo=0, lo_open=True)
        p.integer("max_output_chars", self.max_output_chars, lo=1)
        p.raise_any()


@dataclass
class Sandbox:
    allow_unsafe_fallback: bool = MISSING  # true: without bubblewrap, a bare `unshare` (fsmem.sandbox)


@dataclass
class Realtalk:
    data_dir: str = MISSING
    chats: Optional[List[str]] = MISSING
    categories: List[int] = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.realtalk")
        p.strings("chats", self.chats, null=True)  # the categories: the benchmark's (tailmem.fsmem.group)
        p.raise_any()


@dataclass
class BenchmarkBlock:
    """A registered benchmark's block in the open mapping `fsmem.benchmarks` (a new benchmark adds one in
    configs/fsmem/default.yaml, no field here); LoCoMo and REALTALK keep their own keys (their entries' `keys`)."""

    data: str = MISSING  # the data location its loader reads (a file or a folder)
    conversations: Optional[List[str]] = MISSING  # null: every conversation there
    categories: List[int] = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.benchmarks")
        p.strings("conversations", self.conversations, null=True)
        p.raise_any()


@dataclass
class Personamem:
    data_dir: str = MISSING
    tiers: List[str] = MISSING
    max_questions: Optional[int] = MISSING
    contexts: Optional[int] = MISSING
    variants: Optional[List[str]] = MISSING
    block_messages: int = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.personamem")
        p.names("tiers", self.tiers, PERSONAMEM_TIERS)
        p.integer("max_questions", self.max_questions, lo=1, null=True)
        p.integer("contexts", self.contexts, lo=1, null=True)
        p.names("variants", self.variants, VARIANTS, null=True)
        p.integer("block_messages", self.block_messages, lo=1)
        p.raise_any()


@dataclass
class Strength:
    benchmark: str = MISSING
    variant: str = MISSING
    harness: str = MISSING
    builders: List[str] = MISSING
    searchers: List[str] = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.study.strength")  # the benchmark and the harness: tailmem.fsmem.group
        p.one_of("variant", self.variant, VARIANTS)
        p.strings("builders", self.builders)
        p.strings("searchers", self.searchers)
        p.raise_any()


@dataclass
class Replicates:
    count: int = MISSING
    benchmark: str = MISSING
    variant: str = MISSING
    harness: str = MISSING
    conversations: int = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.study.replicates")  # the benchmark and the harness: tailmem.fsmem.group
        _positive(p, self, ("count", "conversations"))
        p.one_of("variant", self.variant, VARIANTS)
        p.raise_any()


@dataclass
class Study:
    benchmarks: List[str] = MISSING
    variants: List[str] = MISSING
    harness_variants: List[str] = MISSING
    harnesses: Optional[List[str]] = MISSING  # null: every registered harness
    harness_benchmarks: List[str] = MISSING  # []: no harness study (a smoke slice)
    harness_conversations: int = MISSING
    strength: Strength = MISSING
    replicates: Replicates = MISSING
    growth_variant: str = MISSING
    early_fraction: float = MISSING
    access_unit: List[str] = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem.study")  # the benchmarks and the harnesses: tailmem.fsmem.group
        p.names("variants", self.variants, VARIANTS)
        p.names("harness_variants", self.harness_variants, VARIANTS)
        p.integer("harness_conversations", self.harness_conversations, lo=1)
        p.one_of("growth_variant", self.growth_variant, VARIANTS)
        p.number("early_fraction", self.early_fraction, 0, 1, lo_open=True)
        p.names("access_unit", self.access_unit, ACCESS_UNITS)
        p.raise_any()


@dataclass
class FsmemGroup:
    benchmark: str = MISSING
    data_file: str = MISSING
    conversations: List[str] = MISSING
    conversation: str = MISSING
    variants: List[str] = MISSING
    variant: str = MISSING
    replicate: int = MISSING
    harness: str = MISSING
    build_harness: str = MISSING
    categories: List[int] = MISSING
    max_questions: Optional[int] = MISSING
    stratified: bool = MISSING  # max_questions spread over the categories (stages.locomo.select_questions)
    max_sessions: Optional[int] = MISSING  # first n sessions, questions with evidence there (fsmem.benchmarks)
    judge: bool = MISSING
    gold_overlay: Optional[str] = MISSING  # null = the standard data; a shipped overlay's name or a .yaml path
    retrieval_k: int = MISSING
    chunk: Chunk = MISSING
    rounds: Rounds = MISSING
    shell: Shell = MISSING
    sandbox: Sandbox = MISSING
    realtalk: Realtalk = MISSING
    benchmarks: Dict[str, BenchmarkBlock] = MISSING  # the blocks of benchmarks without keys of their own
    personamem: Personamem = MISSING
    study: Study = MISSING

    def __post_init__(self) -> None:
        p = Problems("fsmem")  # the benchmarks, harnesses, categories and blocks: tailmem.fsmem.group
        p.strings("conversations", self.conversations)
        p.names("variants", self.variants, VARIANTS)
        p.one_of("variant", self.variant, VARIANTS)
        p.integer("replicate", self.replicate, lo=0)
        p.integer("max_questions", self.max_questions, lo=1, null=True)
        p.integer("max_sessions", self.max_sessions, lo=1, null=True)
        p.check("gold_overlay", self.gold_overlay, string_problem(self.gold_overlay, null=True))
        p.integer("retrieval_k", self.retrieval_k, lo=1)
        p.raise_any()
