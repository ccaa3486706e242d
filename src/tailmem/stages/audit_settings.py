"""The typed reader of the `audit` config group: what the audit stage (and the fsmem store-access audit) fit with.

In a module of its own so that the config schema can read the same rules when a DAG is composed without
importing the audit stack (powerlaw, scipy, matplotlib).
"""

from __future__ import annotations

from dataclasses import dataclass

from tailmem.config_types import Int, Num, check

RULES = {
    "top_fraction": Num(lo=0, hi=1, lo_open=True, hi_open=True),  # the top share, e.g. 0.10 for top-10%
    "bootstrap": Int(lo=0),  # semi-parametric bootstrap replicates; 0 = no p_gof
    "gof_threshold": Num(lo=0, hi=1),  # a p-value
    "tpl_alpha_max": Num(lo=1, lo_open=True),  # caps on the fitted alpha
    "pl_alpha_max": Num(lo=1, lo_open=True),
    # points a tail needs before it is fitted (audit.tailfit.MIN_TAIL says why 50); 1 fits any tail
    "min_tail": Int(lo=1),
}


@dataclass(frozen=True)
class AuditSettings:
    """The validated `audit` config group."""

    top_fraction: float
    bootstrap: int
    gof_threshold: float
    pl_alpha_max: float
    tpl_alpha_max: float
    min_tail: int


def settings(cfg) -> AuditSettings:
    """Validate cfg.audit before any work; every error names its key."""
    audit = cfg.get("audit") or {}
    value = {k: check(f"audit.{k}", audit.get(k), rule) for k, rule in RULES.items()}
    return AuditSettings(
        top_fraction=float(value["top_fraction"]),
        bootstrap=int(value["bootstrap"]),
        gof_threshold=float(value["gof_threshold"]),
        pl_alpha_max=float(value["pl_alpha_max"]),
        tpl_alpha_max=float(value["tpl_alpha_max"]),
        min_tail=int(value["min_tail"]),
    )
