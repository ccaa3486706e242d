"""The `audit` group: what the tail audit (and the fsmem store-access audit) fit with. The dataclass is also the
typed object the audit stages read (`settings(cfg)`)."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from tailmem.settings.checks import Problems


@dataclass
class AuditSettings:
    top_fraction: float = MISSING  # the top share, e.g. 0.10 for top-10%
    bootstrap: int = MISSING  # semi-parametric bootstrap replicates; 0 = no p_gof
    gof_threshold: float = MISSING  # a p-value
    tpl_alpha_max: float = MISSING  # caps on the fitted alpha
    pl_alpha_max: float = MISSING
    min_tail: int = MISSING  # points a tail needs before it is fitted (audit.tailfit.MIN_TAIL says why 50)

    def __post_init__(self) -> None:
        p = Problems("audit")
        p.number("top_fraction", self.top_fraction, 0, 1, lo_open=True, hi_open=True)
        p.integer("bootstrap", self.bootstrap, lo=0)
        p.number("gof_threshold", self.gof_threshold, 0, 1)
        p.number("tpl_alpha_max", self.tpl_alpha_max, lo=1, lo_open=True)
        p.number("pl_alpha_max", self.pl_alpha_max, lo=1, lo_open=True)
        p.integer("min_tail", self.min_tail, lo=1)
        p.raise_any()


def settings(cfg) -> AuditSettings:
    """The validated `audit` group of a composed config (a DictConfig, or the typed `Settings`)."""
    from tailmem.settings.checks import typed

    return typed(cfg, "audit", AuditSettings)
