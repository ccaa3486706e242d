"""The `fsmem` group (paper 2): the benchmark, the store variants, the harnesses, the model's rounds, the studies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems, registry, string_problem

ACCESS_UNITS = ("file", "section")  # stages.fsmem_access.UNITS (a test keeps the two equal)
PERSONAMEM_TIERS = ("32k", "128k", "1M")  # data.personamem: the official tiers


def benchmarks() -> list:
    return registry("tailmem.fsmem.benchmarks:BENCHMARKS")


def variants() -> list:
    return registry("tailmem.fsmem.variants:VARIANTS")


def harnesses() -> list:
    return registry("tailmem.fsmem.harnesses:HARNESSES")


def categories(benchmark: str) -> list:
    """Categories a run may answer: the benchmark's scored ones, then its opt-in ones (LoCoMo's 1-4, then 5,
    adversarial, scored by LoCoMo's own rule)."""
    from tailmem.fsmem.benchmarks import allowed_categories

    return allowed_categories(benchmark)


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
        p.strings("chats", self.chats, null=True)
        p.names("categories", self.categories, categories("realtalk"))
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
        p.names("variants", self.variants, variants(), null=True)
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
        p = Problems("fsmem.study.strength")
        p.one_of("benchmark", self.benchmark, benchmarks())
        p.one_of("variant", self.variant, variants())
        p.one_of("harness", self.harness, harnesses())
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
        p = Problems("fsmem.study.replicates")
        _positive(p, self, ("count", "conversations"))
        p.one_of("benchmark", self.benchmark, benchmarks())
        p.one_of("variant", self.variant, variants())
        p.one_of("harness", self.harness, harnesses())
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
        p = Problems("fsmem.study")
        p.names("benchmarks", self.benchmarks, benchmarks())
        p.names("variants", self.variants, variants())
        p.names("harness_variants", self.harness_variants, variants())
        p.names("harnesses", self.harnesses, harnesses(), null=True)
        p.names("harness_benchmarks", self.harness_benchmarks, benchmarks(), empty=True)
        p.integer("harness_conversations", self.harness_conversations, lo=1)
        p.one_of("growth_variant", self.growth_variant, variants())
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
        p = Problems("fsmem")
        p.one_of("benchmark", self.benchmark, benchmarks())
        p.strings("conversations", self.conversations)
        p.names("variants", self.variants, variants())
        p.one_of("variant", self.variant, variants())
        p.integer("replicate", self.replicate, lo=0)
        p.one_of("harness", self.harness, harnesses())
        p.one_of("build_harness", self.build_harness, harnesses())
        p.names("categories", self.categories, categories("locomo"))
        p.integer("max_questions", self.max_questions, lo=1, null=True)
        p.integer("max_sessions", self.max_sessions, lo=1, null=True)
        p.check("gold_overlay", self.gold_overlay, string_problem(self.gold_overlay, null=True))
        p.integer("retrieval_k", self.retrieval_k, lo=1)
        self._check_blocks(p)
        p.raise_any()

    def _check_blocks(self, p: Problems) -> None:
        """Each block belongs to a registered benchmark and lists its categories; a benchmark the run or a study
        names has its block (a missing one would fail only when its job runs)."""
        from tailmem.fsmem.benchmarks import block_keys

        if not isinstance(self.benchmarks, dict) or not isinstance(self.study, Study):
            return  # a default object (MISSING values are Hydra's to refuse)
        known = benchmarks()
        for name, block in self.benchmarks.items():
            if name not in known:
                p.add(f"fsmem.benchmarks.{name}: not a registered benchmark (tailmem.fsmem.benchmarks: {known})")
            else:
                p.names(f"benchmarks.{name}.categories", block.categories, categories(name))
        named = [self.benchmark, *self.study.benchmarks, *self.study.harness_benchmarks]
        for name in dict.fromkeys(n for n in named if n in known):
            if block_keys(name)[0].startswith("benchmarks.") and name not in self.benchmarks:
                p.add(f"fsmem.benchmarks.{name}: no block for benchmark {name!r} (data, conversations, categories)")
