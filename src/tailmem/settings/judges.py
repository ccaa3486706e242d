"""The `judges` group: which judges score the same answers again, and the F1 line each is compared with
(studies/judge_sensitivity/sensitivity.py, table judge_sensitivity; docs/judges.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from omegaconf import MISSING

from tailmem.settings.checks import Problems

JUDGES = ("paper", "per_type", "gist")  # each judge's rule: tailmem.judges.panel


@dataclass
class JudgesGroup:
    names: List[str] = MISSING  # of JUDGES, each played by llm.roles.judge
    f1_threshold: float = MISSING  # an answer passes LoCoMo's official token F1 at F1 >= this
    claims: bool = MISSING  # the claims tables add each judge's verdict and `judge_sensitive`

    def __post_init__(self) -> None:
        p = Problems("judges")
        p.names("names", self.names, JUDGES)
        p.number("f1_threshold", self.f1_threshold, 0, 1)
        p.raise_any()
