"""How much judges agree on the same answers: raw agreement, Cohen's kappa for a pair, Krippendorff's alpha for
all of them at once.

Why all three: raw agreement is inflated when nearly every answer is right (or wrong); Cohen's kappa corrects a
pair for the agreement their marginals give by chance; Krippendorff's alpha does the same for any number of
judges and tolerates an answer one judge could not read. Labels are 1 (correct), 0 (wrong) or None/NaN (the
judge's reply was unreadable); an item missing a label is left out of a pair's statistics.
"""

from __future__ import annotations

import numpy as np


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"judge labels: two judges over different items ({a.shape} vs {b.shape})")
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def agreement(a, b) -> float:
    """Share of the items both judges labelled on which they give the same label (nan with none)."""
    a, b = _pair(a, b)
    return float(np.mean(a == b)) if a.size else float("nan")


def cohen_kappa(a, b) -> float:
    """Cohen's kappa of two judges' binary labels: (p_o - p_e) / (1 - p_e), p_e from each judge's own rate of 1s.
    nan when chance already explains every agreement (p_e = 1: both judges gave one and the same label
    throughout), where kappa is 0/0."""
    a, b = _pair(a, b)
    if not a.size:
        return float("nan")
    p_o = float(np.mean(a == b))
    pa, pb = float(np.mean(a)), float(np.mean(b))
    p_e = pa * pb + (1 - pa) * (1 - pb)
    return float("nan") if np.isclose(p_e, 1.0) else round((p_o - p_e) / (1 - p_e), 12) + 0.0  # no "-0" in a table


def krippendorff_alpha(labels) -> float:
    """Krippendorff's alpha (nominal) of a judges x items matrix of 0/1 labels, NaN = missing, from the
    `krippendorff` package; nan when there is no disagreement to measure against (every label the same value,
    where alpha is 0/0) or fewer than two labels on every item."""
    import krippendorff

    data = np.asarray(labels, dtype=float)
    if data.ndim != 2 or data.shape[0] < 2:
        raise ValueError(f"judge labels: alpha needs a judges x items matrix with two or more judges, got {data.shape}")
    pairable = np.sum(np.isfinite(data), axis=0) >= 2
    if not pairable.any() or np.unique(data[:, pairable][np.isfinite(data[:, pairable])]).size < 2:
        return float("nan")
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
