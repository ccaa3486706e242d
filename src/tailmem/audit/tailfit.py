"""Tail fits of the positive access counts with `powerlaw` (pinned 2.0.0): power law, TPL, log-normal.

xmin is chosen by KS minimisation over the data values (Clauset, Shalizi & Newman 2009), as `powerlaw.Fit`
does; the truncated power law and the log-normal are then fitted to the same tail (x >= xmin) so that their
log-likelihood ratio compares like with like.

Pitfalls of powerlaw 2.0.0 handled here:
- every `alpha` is capped at 3 by default `parameter_ranges`; a fit at the cap is flagged as noise and, for the
  power law, the xmin candidate is discarded. We pass our own caps (`pl_alpha_max`, `tpl_alpha_max`).
- `Fit.distribution_compare` forces `nested=True` whenever one name contains the other, whatever `nested` says.
  We never go through it: the ratio is computed from the per-point log-likelihoods with `nested=False`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import powerlaw
from powerlaw.statistics import loglikelihood_ratio

import tailmem.audit.tpl_normalizer as tpl_normalizer

tpl_normalizer.install()  # the discrete TPL's normaliser without mpmath's Lerch sum (same values, ~60x faster)

MIN_DISTINCT = 10  # fewer distinct positive counts than this: no tail to speak of, report "degenerate"
# Fewer points than this at or above xmin: report "tail_too_small", not numbers. Why 50: Clauset, Shalizi & Newman
# (2009, section 4) find that below roughly 50 tail observations their goodness-of-fit test can seldom reject a
# power law even for data drawn from something else, so p_gof would pass by default; and the MLE's standard error
# (alpha - 1) / sqrt(n_tail) is then already 0.2 at alpha = 2.5, about the gap between topologies in paper 1
# Table 3. The audit stage reads it from `audit.min_tail` (docs/stats.md).
MIN_TAIL = 50
# An alpha within this fraction of its cap is the optimiser stopped by the bound, not an estimate: flagged. The
# slack is needed because powerlaw's bounded search stops short of the bound: on Poisson(30) counts it returned
# 9.68 under a cap of 10 where the uncapped estimate is 19.7 (tests/audit/test_tailfit.py).
CAP_TOLERANCE = 0.05

NAN = float("nan")


@dataclass(frozen=True)
class TailFit:
    """One count vector's tail fit. `status` is "ok", "degenerate" (too few distinct counts) or "tail_too_small"
    (fewer than `min_tail` points at or above xmin); only an "ok" fit has numbers beyond xmin and n_tail."""

    status: str
    reason: str
    n_positive: int
    n_distinct: int
    xmin: float = NAN
    alpha: float = NAN
    n_tail: int = 0
    ks_D: float = NAN
    xmin_valid: bool = False  # False: no xmin candidate had an alpha inside (0, pl_alpha_max); powerlaw fell back
    alpha_at_cap: bool = False  # the power-law alpha sits at pl_alpha_max: a bound, not an estimate
    tpl_alpha_at_cap: bool = False  # the same for the truncated power law's alpha and tpl_alpha_max
    tpl_alpha: float = NAN
    tpl_lambda: float = NAN
    ln_mu: float = NAN
    ln_sigma: float = NAN
    R_tpl_ln: float = NAN  # sum of log-likelihood differences on the tail; > 0 favours the TPL
    p_tpl_ln: float = NAN  # Vuong's two-sided significance of the sign of R (non-nested)
    R_pl_ln: float = NAN  # > 0 favours the pure power law over the log-normal
    p_pl_ln: float = NAN

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict:
        """The `tail` block of audit.json."""
        return {
            "status": self.status,
            "reason": self.reason,
            "xmin": self.xmin,
            "alpha": self.alpha,
            "n_tail": self.n_tail,
            "ks_D": self.ks_D,
            "xmin_valid": self.xmin_valid,
            "alpha_at_cap": self.alpha_at_cap,
            "tpl_alpha_at_cap": self.tpl_alpha_at_cap,
            "tpl": {"alpha": self.tpl_alpha, "lambda": self.tpl_lambda},
            "lognormal": {"mu": self.ln_mu, "sigma": self.ln_sigma},
            "R_tpl_ln": self.R_tpl_ln,
            "p_tpl_ln": self.p_tpl_ln,
            "R_pl_ln": self.R_pl_ln,
            "p_pl_ln": self.p_pl_ln,
        }


def positive_counts(counts) -> np.ndarray:
    """The values the tail fit sees: counts > 0, as floats (powerlaw drops zeros anyway, with a warning)."""
    x = np.asarray(counts, dtype=float).ravel()
    return x[x > 0]


def power_law_fit(data: np.ndarray, pl_alpha_max: float, xmin: float | None = None) -> powerlaw.Fit:
    """`powerlaw.Fit` of discrete data with the power-law alpha cap lifted to `pl_alpha_max`.

    The one place the xmin/alpha estimator is configured; the bootstrap mirrors exactly this call (xmin=None:
    chosen by KS minimisation).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return powerlaw.Fit(data, discrete=True, xmin=xmin, parameter_ranges={"alpha": [0, pl_alpha_max]}, verbose=0)


def log_ratio(ll1: np.ndarray, ll2: np.ndarray) -> tuple[float, float]:
    """Log-likelihood ratio R = sum(ll1 - ll2) and its non-nested (Vuong) p, whatever the names."""
    R, p = loglikelihood_ratio(np.array(ll1, dtype=float), np.array(ll2, dtype=float), nested=False)
    return float(R), float(p)


def at_cap(alpha: float, cap: float) -> bool:
    """`alpha` is within CAP_TOLERANCE of its fit cap `cap`."""
    return bool(np.isfinite(alpha) and alpha >= cap * (1.0 - CAP_TOLERANCE))


def fit_tail(
    counts,
    pl_alpha_max: float = 10.0,
    tpl_alpha_max: float = 10.0,
    xmin: float | None = None,
    min_tail: int = MIN_TAIL,
) -> TailFit:
    """Fit power law, truncated power law and log-normal to the tail of the positive counts.

    xmin=None (the audit) chooses xmin by KS minimisation; a given xmin fixes the tail, e.g. to compare
    the distributions over the whole range. A tail of fewer than `min_tail` points is reported as
    "tail_too_small" with its xmin and size only.
    """
    data = positive_counts(counts)
    n_distinct = int(np.unique(data).size)
    if n_distinct < MIN_DISTINCT:
        return TailFit(
            status="degenerate",
            reason=f"{n_distinct} distinct positive counts (< {MIN_DISTINCT}): no tail to fit",
            n_positive=int(data.size),
            n_distinct=n_distinct,
        )
    fit = power_law_fit(data, pl_alpha_max, xmin)
    tail = fit.data
    if int(fit.n_tail) < min_tail:
        return TailFit(
            status="tail_too_small",
            reason=f"tail too small: {int(fit.n_tail)} points at x >= xmin {float(fit.xmin):g} (< {min_tail})",
            n_positive=int(data.size),
            n_distinct=n_distinct,
            xmin=float(fit.xmin),
            n_tail=int(fit.n_tail),
            xmin_valid=not bool(getattr(fit, "noise_flag", False)),
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pl = fit.power_law
        ln = fit.lognormal
        ll_pl, ll_ln = pl.loglikelihoods(tail), ln.loglikelihoods(tail)
        reason = ""
        try:
            tpl = powerlaw.Truncated_Power_Law(
                data=tail,
                xmin=fit.xmin,
                discrete=True,
                parameter_ranges={"alpha": [0, tpl_alpha_max]},
                parent_Fit=fit,
                verbose=0,
            )
            ll_tpl = tpl.loglikelihoods(tail)
            tpl_alpha, tpl_lambda = float(tpl.alpha), float(tpl.Lambda)
            R_tpl_ln, p_tpl_ln = log_ratio(ll_tpl, ll_ln)
        except (ArithmeticError, ValueError) as exc:
            # powerlaw's discrete TPL normaliser (mpmath) can divide by zero for extreme lambda: keep the
            # power-law and log-normal results and say why the TPL columns are empty.
            reason = f"truncated power law not fitted ({type(exc).__name__} in powerlaw's discrete normaliser)"
            tpl_alpha = tpl_lambda = R_tpl_ln = p_tpl_ln = float("nan")
    R_pl_ln, p_pl_ln = log_ratio(ll_pl, ll_ln)
    return TailFit(
        status="ok",
        reason=reason,
        n_positive=int(data.size),
        n_distinct=n_distinct,
        xmin=float(fit.xmin),
        alpha=float(pl.alpha),
        n_tail=int(fit.n_tail),
        ks_D=float(pl.D),
        xmin_valid=not bool(getattr(fit, "noise_flag", False)),  # unset when xmin is given
        alpha_at_cap=at_cap(float(pl.alpha), pl_alpha_max),
        tpl_alpha_at_cap=at_cap(tpl_alpha, tpl_alpha_max),
        tpl_alpha=tpl_alpha,
        tpl_lambda=tpl_lambda,
        ln_mu=float(ln.mu),
        ln_sigma=float(ln.sigma),
        R_tpl_ln=R_tpl_ln,
        p_tpl_ln=p_tpl_ln,
        R_pl_ln=R_pl_ln,
        p_pl_ln=p_pl_ln,
    )
