"""Bootstrap goodness-of-fit p of the power-law tail (Clauset, Shalizi & Newman 2009, section 4.1).

Semi-parametric bootstrap: each replicate has the data's size n; every value is, with probability n_tail/n,
drawn from the fitted discrete power law above xmin, else resampled from the empirical values below xmin.
Each replicate is refitted from scratch (xmin by KS minimisation, alpha, KS distance D) and
p = fraction of replicates with D_rep >= D_data.

The refit is the estimator of `tailfit.power_law_fit` (powerlaw 2.0.0 `Fit(discrete=True)`), re-implemented
to run on all B replicates at once with numpy/scipy. Per xmin candidate powerlaw does:
- candidates: the distinct data values except the largest two; fewer than 2 candidates -> no fit (nan);
- alpha: if xmin >= 10 and the estimate 1 + n / sum(log(x / (xmin - 0.5))) lies in (1.5, 3], that estimate
  (Clauset et al. eq. 3.7); otherwise scipy's bounded Nelder-Mead (tol 1e-4) on the discrete likelihood over
  [0, alpha_max], started from that estimate (xmin >= 10) or the continuous one. We replay the same
  Nelder-Mead steps on all candidates at once (`nelder_mead_alpha`): it stops short of the exact MLE by up to
  ~1e-4, and well short of it near the cap, and those stopping points decide which candidates are valid;
- a numerical alpha within 0.01 of a bound marks the candidate invalid (powerlaw's "near boundary" noise flag);
- D: max over the distinct tail values x of |P_fit(X < x) - P_data(X < x)|, with P_fit computed as powerlaw
  does, 1 - zeta(alpha, x) relative to 1 - zeta(alpha, xmin) (including its cancellation for steep tails);
- xmin: the valid candidate of least D (the first on ties); if none is valid, the least D overall.
`bootstrap_gof_reference` refits the same replicates with `powerlaw.Fit` itself: the slow check.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from scipy.special import zeta

from tailmem.audit.tailfit import positive_counts, power_law_fit

APPROX_XMIN = 10  # powerlaw switches to the approximate discrete estimator from this xmin on
BOUNDARY_EPS = 1e-2  # powerlaw's "too close to a parameter bound" distance
TINY = 10.0**sys.float_info.min_10_exp  # what powerlaw's cdf returns for out-of-range parameters
TABLE = 100_000  # exact inverse-CDF table length of the power-law sampler
PAIR_BUDGET = 2_000_000  # (candidate, tail value) pairs per chunk of replicates: bounds memory


@dataclass(frozen=True)
class TailRefits:
    """Per-sample refit: xmin, alpha, KS distance, tail size (nan / 0 where no fit was possible)."""

    xmin: np.ndarray
    alpha: np.ndarray
    ks_D: np.ndarray
    n_tail: np.ndarray


@dataclass(frozen=True)
class Gof:
    """Bootstrap goodness-of-fit: p = mean(D_rep >= D_data) over B replicates."""

    p: float
    B: int
    ks_D: float
    replicate_D: np.ndarray
    replicate_xmin: np.ndarray
    replicate_alpha: np.ndarray


# --- sampling ---------------------------------------------------------------------------------------------


def sample_discrete_power_law(xmin: int, alpha: float, size, rng: np.random.Generator) -> np.ndarray:
    """Integers x >= xmin with P(X = x) = x^-alpha / zeta(alpha, xmin), by inverse CDF.

    Exact on [xmin, xmin + TABLE); the rare draw beyond uses zeta(alpha, x) ~ (x - 1/2)^(1-alpha) / (alpha-1),
    whose relative error there is below 1e-10.
    """
    if alpha <= 1:
        raise ValueError(f"a discrete power law needs alpha > 1, got {alpha}")
    xmin = int(xmin)
    support = np.arange(xmin, xmin + TABLE, dtype=float)
    Z = zeta(alpha, xmin)
    ccdf = zeta(alpha, support) / Z  # P(X >= x), descending from 1
    u = 1.0 - rng.random(size)  # (0, 1]
    k = np.searchsorted(-ccdf, -u, side="right")  # entries with P(X >= x) >= u
    x = xmin + k - 1.0
    beyond = k == TABLE
    if np.any(beyond):
        far = np.floor(((alpha - 1) * u[beyond] * Z) ** (-1.0 / (alpha - 1)) + 0.5)
        x[beyond] = np.maximum(far, xmin + TABLE - 1)
    return x


def bootstrap_replicates(data, xmin: float, alpha: float, B: int, rng: np.random.Generator) -> np.ndarray:
    """B semi-parametric replicates of the positive values `data`, shape (B, n), as floats."""
    data = positive_counts(data)
    n = data.size
    below = data[data < xmin]
    tail_prob = 1.0 - below.size / n
    from_tail = rng.random((B, n)) < tail_prob
    out = np.empty((B, n))
    out[from_tail] = sample_discrete_power_law(int(xmin), alpha, int(from_tail.sum()), rng)
    n_body = int((~from_tail).sum())
    if n_body:
        out[~from_tail] = rng.choice(below, size=n_body)
    return out


# --- vectorised refit -------------------------------------------------------------------------------------


def neg_loglik(alpha: np.ndarray, xmin: np.ndarray, sum_log: np.ndarray, n: np.ndarray, alpha_max: float):
    """powerlaw's fit cost -sum(log pdf) of a discrete power law, in closed form, float quirks included.

    Its normaliser is 1 / (1 - (1 - zeta(alpha, xmin))): for steep tails the cancellation makes the cost noisy
    near the cap, and infinite once zeta < 1e-16; Nelder-Mead's path depends on that, so we keep it.
    Outside (0, alpha_max) powerlaw's pdf is 1e-307 everywhere; a zero likelihood is also set to 1e-307.
    """
    with np.errstate(all="ignore"):
        cdf_xmin = 1 - zeta(alpha, xmin)
        C = 1.0 / (1.0 - cdf_xmin)
        cost = alpha * sum_log - n * np.log(C)
    floor = -n * np.log(TINY)
    cost = np.where(C == 0, floor, cost)
    return np.where((alpha > 0) & (alpha < alpha_max), cost, floor)


def nelder_mead_alpha(xmin, sum_log, n, alpha0, alpha_max: float) -> tuple[np.ndarray, np.ndarray]:
    """scipy's bounded 1-D Nelder-Mead (tol 1e-4, 200 evaluations) as powerlaw calls it, on many fits at once.

    Mirrors `scipy.optimize._optimize._minimize_neldermead` step by step (reflect, expand, outside/inside
    contraction, shrink, clipping to [0, alpha_max], stable sort), so that it stops where powerlaw's fit stops,
    including near the cap where the cost is noisy. Returns (alpha, success); success is False where the
    evaluation budget ran out, which powerlaw turns into an invalid xmin candidate.
    """
    tol, maxfun, hi = 1e-4, 200, float(alpha_max)

    def f(a, i):
        return neg_loglik(a, xmin[i], sum_log[i], n[i], hi)

    every = np.arange(xmin.size)
    s0 = np.clip(alpha0, 0, hi)
    s1 = np.where(s0 != 0, 1.05 * s0, 0.00025)
    s1 = np.clip(np.where(s1 > hi, 2 * hi - s1, s1), 0, hi)
    g0, g1 = f(s0, every), f(s1, every)
    calls = np.full(xmin.size, 2)
    success = np.zeros(xmin.size, dtype=bool)

    def sort(i):
        swap = (g1[i] < g0[i]) | (np.isnan(g0[i]) & ~np.isnan(g1[i]))
        j = i[swap]
        s0[j], s1[j] = s1[j], s0[j].copy()
        g0[j], g1[j] = g1[j], g0[j].copy()

    sort(every)
    active = every
    while active.size:
        a = active
        with np.errstate(invalid="ignore"):
            converged = (np.abs(s1[a] - s0[a]) <= tol) & (np.abs(g0[a] - g1[a]) <= tol)
        out_of_calls = calls[a] >= maxfun
        success[a[converged & ~out_of_calls]] = True
        a = a[~converged & ~out_of_calls]
        if not a.size:
            break
        x0, x1, f0, f1 = s0[a], s1[a], g0[a], g1[a]
        xr = np.clip(2 * x0 - x1, 0, hi)
        fr = f(xr, a)
        calls[a] += 1
        expand = fr < f0
        outside = ~expand & (fr < f1)
        x2 = np.where(expand, 3 * x0 - 2 * x1, np.where(outside, 1.5 * x0 - 0.5 * x1, 0.5 * x0 + 0.5 * x1))
        x2 = np.clip(x2, 0, hi)
        room = calls[a] < maxfun  # no room: scipy raises inside the step and gives up, sim unchanged
        f2 = np.full(a.size, np.nan)
        f2[room] = f(x2[room], a[room])
        calls[a[room]] += 1
        take_xe = room & expand & (f2 < fr)
        take_xr = room & expand & ~(f2 < fr)
        take_x2 = room & ~expand & np.where(outside, f2 <= fr, f2 < f1)
        shrink = room & ~expand & ~take_x2
        new1 = np.where(take_xe | take_x2, x2, np.where(take_xr, xr, x1))
        newf = np.where(take_xe | take_x2, f2, np.where(take_xr, fr, f1))
        shrink_ok = shrink & (calls[a] < maxfun)
        xs = np.clip(x0 + 0.5 * (x1 - x0), 0, hi)
        new1 = np.where(shrink, xs, new1)
        newf[shrink_ok] = f(xs[shrink_ok], a[shrink_ok])
        calls[a[shrink_ok]] += 1
        s1[a], g1[a] = new1, newf
        sort(a)
        calls[a[~room | (shrink & ~shrink_ok)]] = maxfun  # budget exhausted mid-step: stops next round
        active = a
    return s0.copy(), success


def fit_power_law_tails(samples: np.ndarray, alpha_max: float) -> TailRefits:
    """Refit xmin and alpha on every row of `samples` (positive values) exactly as `tailfit.power_law_fit`."""
    samples = np.sort(np.asarray(samples, dtype=float), axis=1)
    n_distinct = 1 + np.count_nonzero(np.diff(samples, axis=1), axis=1)
    parts, rows, pairs = [], [], 0
    for r, u in enumerate(n_distinct):
        rows.append(r)
        pairs += int(u) * int(u) // 2
        if pairs >= PAIR_BUDGET or r == len(n_distinct) - 1:
            parts.append(_fit_chunk(samples[rows], alpha_max))
            rows, pairs = [], 0
    if not parts:
        empty = np.empty(0)
        return TailRefits(empty, empty, empty, empty.astype(int))
    return TailRefits(*(np.concatenate(arrs) for arrs in zip(*parts)))


def _fit_chunk(x: np.ndarray, alpha_max: float) -> tuple[np.ndarray, ...]:
    """The refit of sorted rows `x`: flat arrays over (row, distinct value), then over candidate pairs."""
    R, n = x.shape
    is_new = np.ones(x.shape, dtype=bool)
    is_new[:, 1:] = x[:, 1:] != x[:, :-1]
    row, start = np.nonzero(is_new)  # distinct values, grouped by row, ascending
    value = x[row, start]
    U = np.bincount(row, minlength=R)
    first = np.concatenate([[0], np.cumsum(U)[:-1]])
    rank = np.arange(row.size) - first[row]
    suffix_log = np.cumsum(np.log(x)[:, ::-1], axis=1)[:, ::-1]

    cand = np.nonzero(rank < U[row] - 2)[0]  # powerlaw drops the two largest distinct values
    crow, q = row[cand], value[cand]
    n_tail = n - start[cand]
    sum_log = suffix_log[crow, start[cand]]

    # alpha per candidate: powerlaw's approximate estimator where it uses it, else the exact discrete MLE
    with np.errstate(divide="ignore", invalid="ignore"):
        discrete_est = 1 + n_tail / (sum_log - n_tail * np.log(q - 0.5))  # Clauset et al. eq. 3.7
        continuous_est = 1 + n_tail / (sum_log - n_tail * np.log(q))
    use_approx = (q >= APPROX_XMIN) & (discrete_est > 1.5) & (discrete_est <= 3)
    alpha = discrete_est.copy()
    numeric = np.nonzero(~use_approx)[0]
    start_alpha = np.maximum(np.where(q >= APPROX_XMIN, discrete_est, continuous_est)[numeric], 1.0)
    alpha[numeric], converged = nelder_mead_alpha(
        q[numeric], sum_log[numeric], n_tail[numeric].astype(float), start_alpha, alpha_max
    )
    in_range = (alpha > 0) & (alpha < alpha_max)
    valid = in_range.copy()
    near_bound = (alpha[numeric] - BOUNDARY_EPS < 0) | (alpha[numeric] + BOUNDARY_EPS > alpha_max)
    valid[numeric] &= converged & ~near_bound

    # KS distance per candidate over its tail's distinct values (pairs candidate x tail value)
    k_pairs = U[crow] - rank[cand]
    seg = np.concatenate([[0], np.cumsum(k_pairs)[:-1]])
    pc = np.repeat(np.arange(cand.size), k_pairs)
    pv = cand[pc] + (np.arange(pc.size) - seg[pc])  # flat index of the tail value
    empirical = (start[pv] - start[cand][pc]) / n_tail[pc]
    cdf_xmin = 1 - zeta(alpha, q)
    a = alpha[pc]
    with np.errstate(divide="ignore", invalid="ignore"):
        theory = ((1 - zeta(a, value[pv])) - cdf_xmin[pc]) / (1 - cdf_xmin[pc])
    theory = np.where(cdf_xmin[pc] == 1, 1.0, theory)
    theory = np.where(in_range[pc], theory, TINY)
    D = np.maximum.reduceat(np.abs(theory - empirical), seg) if pc.size else np.empty(0)

    # choose xmin per row: least D among valid candidates, else least D overall
    xmin_out, alpha_out = np.full(R, np.nan), np.full(R, np.nan)
    D_out, nt_out = np.full(R, np.nan), np.zeros(R, dtype=int)
    n_cand = np.bincount(crow, minlength=R)
    has_valid = np.bincount(crow, weights=valid, minlength=R) > 0
    Dkey = np.where(np.isnan(D), np.inf, D)
    key = np.where(valid | ~has_valid[crow], Dkey, np.inf)
    order = np.lexsort((np.arange(cand.size), key, crow))  # by row, then D, then smallest xmin
    best = order[np.concatenate([[0], np.cumsum(n_cand)[:-1]])[n_cand > 0]] if cand.size else order
    fitted = np.nonzero(n_cand >= 2)[0]
    best = best[n_cand[n_cand > 0] >= 2]
    xmin_out[fitted] = q[best]
    alpha_out[fitted] = alpha[best]
    D_out[fitted] = D[best]
    nt_out[fitted] = n_tail[best]
    return xmin_out, alpha_out, D_out, nt_out


# --- the test -----------------------------------------------------------------------------------------------


def bootstrap_gof(data, xmin: float, alpha: float, ks_D: float, B: int, seed: int, alpha_max: float) -> Gof:
    """Vectorised bootstrap p of the fitted tail (xmin, alpha, ks_D from `tailfit.fit_tail`)."""
    reps = bootstrap_replicates(data, xmin, alpha, B, np.random.default_rng(seed))
    refit = fit_power_law_tails(reps, alpha_max)
    return _gof(refit.ks_D, refit.xmin, refit.alpha, ks_D)


def bootstrap_gof_reference(data, xmin: float, alpha: float, ks_D: float, B: int, seed: int, alpha_max: float) -> Gof:
    """The slow check: the same replicates (same seed), each refitted by `powerlaw.Fit` itself."""
    reps = bootstrap_replicates(data, xmin, alpha, B, np.random.default_rng(seed))
    D, xm, al = np.full(B, np.nan), np.full(B, np.nan), np.full(B, np.nan)
    for b, rep in enumerate(reps):
        fit = power_law_fit(rep, alpha_max)
        if np.isfinite(fit.xmin):
            D[b], xm[b], al[b] = fit.D, fit.xmin, fit.alpha
    return _gof(D, xm, al, ks_D)


def _gof(D: np.ndarray, xmin: np.ndarray, alpha: np.ndarray, ks_D: float) -> Gof:
    B = int(D.size)
    p = float(np.mean(D >= ks_D)) if B else float("nan")  # a replicate with no fit (nan D) counts as D < D_data
    return Gof(p=p, B=B, ks_D=float(ks_D), replicate_D=D, replicate_xmin=xmin, replicate_alpha=alpha)
