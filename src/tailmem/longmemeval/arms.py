"""The controllers compared on LongMemEval, each an arm with a readable name, built from `configs/memory/`.

Graph Memory and CTMC share one candidate list: the top `candidates` sessions by BM25, best first (the top one
is the query's `current` item, the rest its `related` items, kept in retrieval order: `rank_by=query`). Graph
Memory puts whole sessions in verbatim while they fit `graph_budget`; CTMC arm `ctmc-r<ratio>` spends `ratio`
times Graph Memory's measured memory tokens on the same question (ratio 1 = matched budget) on a verbatim core
of the most relevant turns and a summarised tail. Full History (every turn) and Flat Retrieval (the `flat_k`
sessions with most word overlap, whole, no budget) are the references.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tailmem.errors import ConfigError
from tailmem.memory.arms import arm_settings


@dataclass(frozen=True)
class Arm:
    name: str
    label: str
    memory: dict = field(hash=False)  # settings for memory.controllers.make_controller
    ratio: float | None = None  # CTMC only: budget = ratio x Graph Memory's memory tokens


def ctmc_name(ratio: float) -> str:
    return f"ctmc-r{float(ratio):g}"


def make_arms(lme) -> list[Arm]:
    """Graph Memory first (CTMC's budgets are read from it), then CTMC per ratio, then the references."""
    enc = str(lme.encoding)
    arms = []
    gm = arm_settings("graph_memory", encoding=enc, budget=int(lme.graph_budget), rank_by="query")
    arms.append(Arm("graph_memory", gm.pop("label"), gm))
    for ratio in lme.ctmc_ratios:
        if not 0 < float(ratio) <= 1:
            raise ConfigError(f"longmemeval.ctmc_ratios: expected ratios in (0, 1], got {ratio}")
        c = arm_settings("ctmc", encoding=enc, budget=None, tau=float(lme.tau), rank_by="query")
        label = c.pop("label")
        arms.append(Arm(ctmc_name(ratio), f"{label} ({float(ratio):g}x)", c, float(ratio)))
    fh = arm_settings("full_history", encoding=enc)
    arms.append(Arm("full_history", fh.pop("label"), fh))
    fr = arm_settings("flat_retrieval", encoding=enc, k=int(lme.flat_k), budget=None)
    arms.append(Arm("flat_retrieval", fr.pop("label"), fr))
    return arms


def arm_payload(cfg) -> dict:
    """The arms' settings as this config builds them (for the stage's config digest)."""
    return {a.name: {"memory": a.memory, "ratio": a.ratio} for a in make_arms(cfg.longmemeval)}
