"""Tail audit of memory-access counts: concentration, tail fits, bootstrap goodness of fit, size scaling."""

from tailmem.audit.bootstrap import bootstrap_gof, bootstrap_gof_reference, bootstrap_replicates
from tailmem.audit.concentration import concentration
from tailmem.audit.scaling import ScalingFit, scaling_fit
from tailmem.audit.tailfit import TailFit, fit_tail
from tailmem.records.audit import Concentration

__all__ = [
    "Concentration",
    "ScalingFit",
    "TailFit",
    "bootstrap_gof",
    "bootstrap_gof_reference",
    "bootstrap_replicates",
    "concentration",
    "fit_tail",
    "scaling_fit",
]
