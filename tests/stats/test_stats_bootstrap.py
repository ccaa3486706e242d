"""The bootstrap interval against planted truths and against scipy's own bootstrap."""

import numpy as np
import pytest
from scipy import stats as sps

from tailmem.stats.bootstrap import mean_interval, replicate_means

REPEATS = 200


def covers(interval, truth) -> bool:
    return interval.low <= truth <= interval.high


def test_paired_interval_covers_a_planted_difference():
    """Units only (one seed): a 95% interval holds the planted mean difference in >= 90% of 200 data sets."""
    rng = np.random.default_rng(11)
    delta, hits = 0.3, 0
    for r in range(REPEATS):
        base = rng.normal(0.0, 1.0, 60)  # the unit's own level, shared by both arms: pairing removes it
        a = base + delta + rng.normal(0.0, 0.5, 60)
        b = base + rng.normal(0.0, 0.5, 60)
        hits += covers(mean_interval(a - b, resamples=1000, seed=r), delta)
    assert hits / REPEATS >= 0.90, hits


@pytest.mark.slow
def test_two_stage_interval_covers_with_seed_effects():
    """Eight seeds, each shifting all its units' differences by a shared amount: resampling seeds first keeps
    the 95% coverage >= 90%; resampling units alone (seeds ignored) falls well short."""
    rng = np.random.default_rng(12)
    delta, seeds, units = 0.2, 8, 40
    two_stage = units_only = 0
    for r in range(REPEATS):
        groups = np.repeat(np.arange(seeds), units)
        d = delta + rng.normal(0.0, 0.3, seeds)[groups] + rng.normal(0.0, 1.0, seeds * units)
        two_stage += covers(mean_interval(d, groups, resamples=1000, seed=r), delta)
        units_only += covers(mean_interval(d, None, resamples=1000, seed=r), delta)
    assert two_stage / REPEATS >= 0.90, two_stage
    assert units_only / REPEATS < 0.80, units_only  # why the outer level is there


def test_weighted_units_cover_the_observation_mean():
    """States as units, steps as weights: the interval is about the mean over steps."""
    rng = np.random.default_rng(13)
    p_a, p_b, hits = 0.30, 0.45, 0
    for r in range(REPEATS):
        visits = rng.integers(1, 12, 80)  # steps per state
        state_a = rng.binomial(visits, p_a) / visits
        state_b = rng.binomial(visits, p_b) / visits
        hits += covers(mean_interval(state_a - state_b, weights=visits, resamples=1000, seed=r), p_a - p_b)
    assert hits / REPEATS >= 0.90, hits


def test_matches_scipy_bootstrap_without_seeds():
    """One seed: the same percentile interval as scipy.stats.bootstrap, up to Monte Carlo error."""
    rng = np.random.default_rng(14)
    d = rng.gamma(2.0, 1.0, 150) - 2.0
    ours = mean_interval(d, confidence=0.9, resamples=20_000, seed=1)
    ref = sps.bootstrap(
        (d,),
        np.mean,
        confidence_level=0.9,
        n_resamples=20_000,
        method="percentile",
        random_state=np.random.default_rng(2),
    ).confidence_interval
    se = d.std(ddof=1) / np.sqrt(d.size)
    assert ours.low == pytest.approx(ref.low, abs=0.05 * se * 10)
    assert ours.high == pytest.approx(ref.high, abs=0.05 * se * 10)
    assert ours.estimate == pytest.approx(d.mean())


def test_replicate_spread_matches_the_standard_error():
    """Units only, the replicates' sd is the plug-in standard error of the mean."""
    d = np.random.default_rng(15).normal(0.0, 2.0, 400)
    reps = replicate_means(d, resamples=20_000, seed=0)
    assert reps.std() == pytest.approx(d.std(ddof=0) / np.sqrt(d.size), rel=0.03)


def test_one_seed_of_units_equals_no_seeds():
    d = np.random.default_rng(16).normal(size=50)
    assert np.array_equal(
        replicate_means(d, np.zeros(50), resamples=500, seed=3), replicate_means(d, None, resamples=500, seed=3)
    )


def test_chunking_changes_nothing_but_memory(monkeypatch):
    from tailmem.stats import bootstrap

    d = np.random.default_rng(17).normal(size=300)
    groups = np.repeat([0, 1, 2], 100)
    whole = bootstrap.replicate_means(d, groups, resamples=400, seed=5)
    monkeypatch.setattr(bootstrap, "MAX_DRAWS", 1000)  # three replicates per chunk
    chunked = bootstrap.replicate_means(d, groups, resamples=400, seed=5)
    assert chunked.shape == whole.shape and abs(chunked.std() - whole.std()) < 0.2 * whole.std()


def test_seeded_and_reproducible():
    d = np.random.default_rng(18).normal(size=40)
    a = mean_interval(d, resamples=300, seed=7)
    assert a == mean_interval(d, resamples=300, seed=7)
    assert a != mean_interval(d, resamples=300, seed=8)


def test_fewer_than_two_units_have_no_interval():
    one = mean_interval([0.3])
    assert one.estimate == pytest.approx(0.3) and not one.defined and one.n_units == 1
    assert not mean_interval([]).defined
