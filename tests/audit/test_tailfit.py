import numpy as np
import pytest
from scipy.special import erfc, zeta

from tailmem.audit.bootstrap import sample_discrete_power_law
from tailmem.audit.tailfit import fit_tail, log_ratio


def sample_tpl(alpha, lam, n, rng, xmax=100_000):
    """Exact discrete truncated power law on 1..xmax (the tail beyond xmax has mass < e^-2000)."""
    k = np.arange(1, xmax + 1.0)
    w = k**-alpha * np.exp(-lam * k)
    return 1 + np.searchsorted(np.cumsum(w) / w.sum(), rng.random(n), side="right")


def test_power_law_sampler_matches_the_pmf():
    x = sample_discrete_power_law(1, 2.5, 200_000, np.random.default_rng(0))
    for k in (1, 2, 5):
        assert np.mean(x == k) == pytest.approx(k**-2.5 / zeta(2.5, 1), rel=0.03)
    assert np.mean(x >= 10) == pytest.approx(zeta(2.5, 10) / zeta(2.5, 1), rel=0.05)


def test_power_law_alpha_recovered():
    x = sample_discrete_power_law(1, 2.5, 10_000, np.random.default_rng(1))
    fit = fit_tail(x)
    assert fit.ok
    assert abs(fit.alpha - 2.5) < 0.1


def test_alpha_cap_of_three_is_lifted():
    x = sample_discrete_power_law(1, 3.5, 20_000, np.random.default_rng(2))
    assert fit_tail(x, xmin=1).alpha == pytest.approx(3.5, abs=0.1)  # default parameter_ranges: <= 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_R_favours_tpl_on_tpl_samples(seed):
    fit = fit_tail(sample_tpl(1.5, 0.02, 5_000, np.random.default_rng(seed)), xmin=1)
    assert fit.R_tpl_ln > 0
    assert fit.tpl_lambda == pytest.approx(0.02, rel=0.5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_R_favours_lognormal_on_lognormal_samples(seed):
    rng = np.random.default_rng(seed)
    x = np.round(np.exp(rng.normal(2.0, 1.0, 2_000)))
    fit = fit_tail(x[x > 0], xmin=1)
    assert fit.R_tpl_ln < 0 and fit.p_tpl_ln < 0.05


def test_likelihood_ratio_is_non_nested():
    rng = np.random.default_rng(3)
    ll1, ll2 = rng.normal(0, 1, 500), rng.normal(0.05, 1, 500)
    R, p = log_ratio(ll1, ll2)
    d = ll1 - ll2
    assert R == pytest.approx(d.sum())
    assert p == pytest.approx(erfc(abs(d.sum()) / np.sqrt(2 * d.size * d.var())))


@pytest.mark.parametrize(
    "counts",
    [np.full(100, 5), np.zeros(50), np.r_[np.zeros(40), np.arange(1, 6).repeat(3)]],
    ids=["all-equal", "all-zero", "five-distinct"],
)
def test_degenerate_vectors_are_flagged_not_crashed(counts):
    fit = fit_tail(counts)
    assert fit.status == "degenerate" and "distinct" in fit.reason
    assert np.isnan(fit.alpha)
    assert fit.to_dict()["tpl"]["alpha"] != fit.to_dict()["tpl"]["alpha"]  # nan


def test_a_failed_truncated_power_law_fit_keeps_the_other_fits(monkeypatch):
    import powerlaw

    from tailmem.audit import tailfit

    def explode(*args, **kwargs):
        raise ZeroDivisionError

    monkeypatch.setattr(powerlaw, "Truncated_Power_Law", explode)
    rng = np.random.default_rng(0)
    fit = tailfit.fit_tail(np.round(rng.lognormal(2.0, 0.8, size=2000)).astype(int))
    assert fit.status == "ok" and "truncated power law not fitted" in fit.reason
    assert np.isnan(fit.R_tpl_ln) and np.isfinite(fit.R_pl_ln) and np.isfinite(fit.alpha)


def test_a_tail_below_the_minimum_is_reported_as_too_small_not_as_numbers():
    """Issue 15: a narrow trace (Poisson counts over 120 states, like a uniform random walk's) has a KS-chosen
    tail of a few points; it used to come back with an alpha near the cap."""
    x = np.random.default_rng(0).poisson(30, 120)
    fit = fit_tail(x)  # default MIN_TAIL = 50
    assert fit.status == "tail_too_small" and not fit.ok and "tail too small" in fit.reason
    assert fit.n_tail < 50 and np.isfinite(fit.xmin)  # where the tail starts and how big it is stay visible
    assert np.isnan(fit.alpha) and np.isnan(fit.R_tpl_ln) and np.isnan(fit.tpl_alpha)
    assert fit.to_dict()["status"] == "tail_too_small"


def test_the_minimum_is_configurable_and_a_big_tail_passes_it():
    x = np.random.default_rng(0).poisson(30, 120)
    assert fit_tail(x, min_tail=1).ok
    big = sample_discrete_power_law(1, 2.5, 2_000, np.random.default_rng(4))
    fit = fit_tail(big, min_tail=50)
    assert fit.ok and fit.n_tail >= 50


def test_an_alpha_at_its_cap_is_flagged():
    x = sample_discrete_power_law(1, 3.5, 5_000, np.random.default_rng(2))
    capped = fit_tail(x, pl_alpha_max=2.0, tpl_alpha_max=2.0, xmin=1)
    assert capped.alpha == pytest.approx(2.0, abs=1e-3) and capped.alpha_at_cap and capped.tpl_alpha_at_cap
    free = fit_tail(x, xmin=1)
    assert not free.alpha_at_cap and not free.tpl_alpha_at_cap
    assert capped.to_dict()["alpha_at_cap"] is True


def test_powerlaw_stops_short_of_the_cap_so_the_flag_has_slack():
    """Why CAP_TOLERANCE is 5%: under a cap of 10 powerlaw returns 9.68 for a tail whose uncapped alpha is 19.7."""
    x = np.random.default_rng(0).poisson(30, 120)
    near = fit_tail(x, min_tail=1)
    uncapped = fit_tail(x, min_tail=1, pl_alpha_max=50.0, xmin=near.xmin)
    assert 9.5 < near.alpha < 10.0 and uncapped.alpha > 15.0
    assert near.alpha_at_cap and not uncapped.alpha_at_cap
