"""The `longmemeval` group (paper 1 Figure 8): the datasets, the arms and their budgets, the reader and judge.

The arm families it may list are named here and read by the arms' builder (tailmem.haystack.arms); the encodings are
the memory group's (tailmem.settings.memory)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional

from omegaconf import MISSING

from tailmem.settings.checks import Problems
from tailmem.settings.memory import ENCODINGS

# The arm families `longmemeval.arms` may list, in the order they run (CTMC's budgets are read from Graph Memory).
ARM_FAMILIES = ("graph_memory", "ctmc", "full_history", "flat_retrieval")


@dataclass
class LongMemEvalGroup:
    files: Dict[str, str] = MISSING  # dataset name -> file
    datasets: List[str] = MISSING
    dataset: str = MISSING
    seeds: List[int] = MISSING
    max_per_type: Optional[int] = MISSING
    max_questions: Optional[int] = MISSING
    encoding: str = MISSING
    arms: List[str] = MISSING
    turn_words: Optional[int] = MISSING
    candidates: int = MISSING
    graph_budget: int = MISSING
    ctmc_ratios: List[float] = MISSING
    primary_ratio: float = MISSING
    noninferiority_margin: float = MISSING  # of CTMC's accuracy and coverage vs Graph Memory (docs/longmemeval.md)
    tau: float = MISSING  # CTMC's rank exponent: 0 = uniform allocation
    flat_k: int = MISSING
    recall_ks: List[int] = MISSING
    min_overlap: float = MISSING
    judge: bool = MISSING
    context_check: Optional[int] = MISSING  # questions answered again without their gold evidence

    def __post_init__(self) -> None:
        p = Problems("longmemeval")
        files = list(self.files or {})
        if self.dataset not in files:
            p.check("dataset", self.dataset, f"expected one of longmemeval.files {files}")
        p.check(
            "datasets",
            self.datasets,
            next(
                (
                    f"item {i} ({d!r}): expected one of longmemeval.files {files}"
                    for i, d in enumerate(self.datasets or [])
                    if d not in files
                ),
                None,
            ),
        )
        p.integers("seeds", self.seeds, lo=0)
        p.integer("max_per_type", self.max_per_type, lo=1, null=True)
        p.integer("max_questions", self.max_questions, lo=1, null=True)
        p.one_of("encoding", self.encoding, ENCODINGS)
        p.names("arms", self.arms, ARM_FAMILIES)
        p.integer("turn_words", self.turn_words, lo=1, null=True)
        for name in ("candidates", "graph_budget", "flat_k"):
            p.integer(name, getattr(self, name), lo=1)
        p.numbers("ctmc_ratios", self.ctmc_ratios, 0, 1, lo_open=True)
        p.number("primary_ratio", self.primary_ratio, 0, 1, lo_open=True)
        ratios = [float(r) for r in self.ctmc_ratios or []]
        if isinstance(self.primary_ratio, float) and self.primary_ratio not in ratios:
            p.check("primary_ratio", self.primary_ratio, f"expected one of longmemeval.ctmc_ratios {ratios}")
        p.number("noninferiority_margin", self.noninferiority_margin, 0, 1)
        p.number("tau", self.tau, lo=0)
        p.integers("recall_ks", self.recall_ks, lo=1)
        p.number("min_overlap", self.min_overlap, 0, 1)
        p.integer("context_check", self.context_check, lo=0, null=True)
        p.raise_any()
