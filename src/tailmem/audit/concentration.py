"""How concentrated an access-count vector is: Gini, top share, sigma_top10, max/median, skew.

Every number is computed over all items, including the ones never accessed (count 0): a state that memory
never touched is part of the inequality we measure, not missing data.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from tailmem.records.audit import Concentration  # the audit record's block: its schema lives with the record


def top_count(n_items: int, top_fraction: float) -> int:
    """Items in the top group: ceil(fraction * n), at least 1 (the epsilon keeps 0.1 * 30 at 3, not 4)."""
    return max(1, math.ceil(top_fraction * n_items - 1e-9))


def gini(counts: np.ndarray) -> float:
    """Gini coefficient of non-negative counts: 0 if all equal, 1 - 1/n if one item has every access."""
    x = np.sort(np.asarray(counts, dtype=float))
    n, total = x.size, x.sum()
    if n == 0 or total == 0:
        return float("nan")
    rank = np.arange(1, n + 1)
    return float(np.sum((2 * rank - n - 1) * x) / (n * total))


def top_share(counts: np.ndarray, top_fraction: float) -> float:
    """Fraction of all accesses captured by the `top_fraction` most accessed items."""
    x = np.sort(np.asarray(counts, dtype=float))[::-1]
    total = x.sum()
    if total == 0:
        return float("nan")
    return float(x[: top_count(x.size, top_fraction)].sum() / total)


def sigma_top(counts: np.ndarray, top_fraction: float, unit: str = "mean") -> float:
    """Population std (ddof=0) of the top items' access counts in units of the mean count over all items.

    Relative to the mean, so a run twice as long gives the same number, while a fixed-length run over more
    items (more of them unseen) gives its top items larger relative counts: the growth with graph size that
    paper 1 Table 2 reports. The paper's values (0.15 at 100 states to 1.5 at 1,000) are on this scale; the
    percent-of-all-accesses scale would instead shrink with size. `unit="count"` gives the std in raw access
    counts instead, the paper's literal wording, which grows with the run's length (the calibration study tries
    both).
    """
    if unit not in ("mean", "count"):
        raise ValueError(f"sigma_top unit {unit!r}: expected 'mean' or 'count'")
    x = np.sort(np.asarray(counts, dtype=float))[::-1]
    mean = x.mean() if x.size else 0.0
    if mean == 0:
        return float("nan")
    top = x[: top_count(x.size, top_fraction)]
    return float(np.std(top / mean if unit == "mean" else top))


def max_median(counts: np.ndarray) -> tuple[float, str]:
    """Max over median of all items; if that median is 0 (most items unseen), the median of nonzero counts.

    Returns the ratio and which median it used ("all" or "nonzero"), so a table can flag the switch.
    """
    x = np.asarray(counts, dtype=float)
    if x.size == 0 or x.max() == 0:
        return float("nan"), "all"
    med = float(np.median(x))
    if med > 0:
        return float(x.max() / med), "all"
    return float(x.max() / np.median(x[x > 0])), "nonzero"


def skewness(counts: np.ndarray) -> float:
    x = np.asarray(counts, dtype=float)
    if x.size < 2 or np.all(x == x[0]):
        return float("nan")
    return float(stats.skew(x))


def concentration(counts: np.ndarray, top_fraction: float = 0.10) -> Concentration:
    """All concentration numbers of one count vector (zeros included)."""
    x = np.asarray(counts)
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"counts must be a non-empty 1-D vector, got shape {x.shape}")
    if not 0 < top_fraction < 1:
        raise ValueError(f"top_fraction must be in (0, 1), got {top_fraction}")
    ratio, basis = max_median(x)
    return Concentration(
        gini=gini(x),
        top_share=top_share(x, top_fraction),
        sigma_top10=sigma_top(x, top_fraction),
        max_median=ratio,
        median_basis=basis,
        skew=skewness(x),
        top_fraction=float(top_fraction),
        n_top=top_count(x.size, top_fraction),
    )
