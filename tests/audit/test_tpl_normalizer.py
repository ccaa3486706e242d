"""The fast discrete-TPL normaliser equals powerlaw's Lerch form, fails where it fails, and fits the same."""

import math

import numpy as np
import powerlaw
import pytest
from mpmath import exp as mexp
from mpmath import lerchphi

from tailmem.audit import tpl_normalizer
from tailmem.audit.tailfit import fit_tail


def lerch(alpha, lam, xmin):
    """powerlaw's own expression."""
    return float(mexp(xmin * lam) / lerchphi(mexp(-lam), alpha, xmin))


@pytest.mark.parametrize("alpha", [0.3, 1.0, 1.5, 2.5, 6.0, 10.0])
@pytest.mark.parametrize("lam", [1e-6, 1e-3, 0.1, 1.0, 3.0])
@pytest.mark.parametrize("xmin", [1, 5, 17, 120])
def test_equals_the_lerch_form(alpha, lam, xmin):
    try:
        want = lerch(alpha, lam, xmin)
    except ZeroDivisionError:  # mpmath gives up; ours is finite or raises the same way
        got = None
        try:
            got = tpl_normalizer.discrete_normalizer(alpha, lam, xmin)
        except ZeroDivisionError:
            return
        assert math.isfinite(got) and got > 0
        return
    assert tpl_normalizer.discrete_normalizer(alpha, lam, xmin) == pytest.approx(want, rel=1e-9)


def test_out_of_range_raises_what_the_library_raises():
    with pytest.raises(ZeroDivisionError):
        tpl_normalizer.discrete_normalizer(2.0, 10.0, 400)  # e^-4000: no float holds the sum
    with pytest.raises(ZeroDivisionError):
        tpl_normalizer.discrete_normalizer(0.5, 0.0, 3)  # divergent


@pytest.mark.slow
def test_fits_equal_the_library_fits():
    rng = np.random.default_rng(3)
    counts = np.round(rng.lognormal(2.0, 1.0, 3000)).astype(int) + 1
    tpl_normalizer.uninstall()
    try:
        ref = fit_tail(counts)
    finally:
        tpl_normalizer.install()
    fast = fit_tail(counts)
    assert powerlaw.Truncated_Power_Law._pdf_discrete_normalizer is not tpl_normalizer._ORIGINAL
    assert fast.xmin == ref.xmin
    assert fast.tpl_alpha == pytest.approx(ref.tpl_alpha, rel=1e-6, abs=1e-9)
    assert fast.tpl_lambda == pytest.approx(ref.tpl_lambda, rel=1e-6, abs=1e-12)
    assert fast.R_tpl_ln == pytest.approx(ref.R_tpl_ln, rel=1e-6, abs=1e-9)
