"""The controllers compared on LongMemEval, each an arm with a readable name, built from `configs/memory/`.

Graph Memory and CTMC share one candidate list: the top `candidates` sessions by BM25, best first (the top one
is the query's `current` item, the rest its `related` items, kept in retrieval order: `rank_by=query`). Graph
Memory puts whole sessions in verbatim while they fit `graph_budget`; CTMC arm `ctmc-r<ratio>` spends `ratio`
times Graph Memory's measured memory tokens on the same question (ratio 1 = matched budget) on a verbatim core
of the most relevant turns and a summarised tail. Full History (every turn) and Flat Retrieval (the `flat_k`
sessions with most word overlap, whole, no budget) are the references.

`longmemeval.arms` picks which of these families run (`ctmc` = one arm per ratio); a model reader with a context
window of a few thousand tokens runs Graph Memory and CTMC only (Full History and Flat Retrieval have no budget).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tailmem.errors import ConfigError
from tailmem.memory.arm_names import ArmName
from tailmem.memory.budget import MATCHED
from tailmem.memory.catalogue import arm_settings
from tailmem.settings.longmemeval import ARM_FAMILIES  # the families `longmemeval.arms` may list


@dataclass(frozen=True)
class Arm:
    name: str
    label: str
    memory: dict = field(hash=False)  # settings for memory.controllers.make_controller
    ratio: float | None = None  # CTMC only: its `matched` budget is ratio x Graph Memory's memory tokens


# Graph Memory on the haystack without its answer-bearing turns (`longmemeval.context_check`): not an arm of the
# comparison but the check that the reader's accuracy responds to its context (tailmem.haystack.reduction).
NO_EVIDENCE = str(ArmName("graph_memory", no_evidence=True))


def ctmc_name(ratio: float) -> str:
    return str(ArmName("ctmc", ratio=float(ratio)))


def families(lme) -> list[str]:
    """The arm families to run (`longmemeval.arms`, all when absent), checked: CTMC needs Graph Memory."""
    chosen = lme.arms
    chosen = list(ARM_FAMILIES) if chosen is None else [str(f) for f in chosen]
    unknown = [f for f in chosen if f not in ARM_FAMILIES]
    if unknown:
        raise ConfigError(
            f"longmemeval.arms: {unknown[0]!r} is not an arm family; expected some of {list(ARM_FAMILIES)}"
        )
    if "ctmc" in chosen and "graph_memory" not in chosen:
        raise ConfigError(
            "longmemeval.arms: ctmc needs graph_memory (CTMC's budgets are shares of Graph Memory's "
            f"tokens on the same question); got {chosen}"
        )
    return [f for f in ARM_FAMILIES if f in chosen]


def make_arms(lme) -> list[Arm]:
    """Graph Memory first (CTMC's budgets are read from it), then CTMC per ratio, then the references; only the
    families `longmemeval.arms` lists."""
    enc = str(lme.encoding)
    run = families(lme)
    arms = []
    if "graph_memory" in run:
        gm = arm_settings("graph_memory", encoding=enc, budget=int(lme.graph_budget), rank_by="query")
        arms.append(Arm("graph_memory", gm.pop("label"), gm))
    for ratio in lme.ctmc_ratios if "ctmc" in run else []:
        if not 0 < float(ratio) <= 1:
            raise ConfigError(f"longmemeval.ctmc_ratios: expected ratios in (0, 1], got {ratio}")
        c = arm_settings("ctmc", encoding=enc, budget=MATCHED, tau=float(lme.tau), rank_by="query")
        label = c.pop("label")
        arms.append(Arm(ctmc_name(ratio), f"{label} ({float(ratio):g}x)", c, float(ratio)))
    if "full_history" in run:
        fh = arm_settings("full_history", encoding=enc)
        arms.append(Arm("full_history", fh.pop("label"), fh))
    if "flat_retrieval" in run:
        fr = arm_settings("flat_retrieval", encoding=enc, k=int(lme.flat_k), budget=None)
        arms.append(Arm("flat_retrieval", fr.pop("label"), fr))
    if not arms:
        raise ConfigError(
            f"longmemeval.arms: no arm to run; expected some of {list(ARM_FAMILIES)} (and "
            f"longmemeval.ctmc_ratios non-empty when only CTMC's families are listed)"
        )
    return arms


def arm_payload(cfg) -> dict:
    """The arms' settings as this config builds them (for the stage's config digest)."""
    return {a.name: {"memory": a.memory, "ratio": a.ratio} for a in make_arms(cfg.longmemeval)}
