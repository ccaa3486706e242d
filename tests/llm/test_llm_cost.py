"""Dollars and paper 2's intrinsic-efficiency bounds on a hand-checked transcript."""

import math

import pytest

from tailmem.llm.cost import bounds, dollars, fresh_input_tokens
from tailmem.llm.records import Usage
from tailmem.settings.llm import Price

MINI = Price(0.75, 0.075, 4.50)


def test_dollars_use_the_three_prices():
    assert dollars(Usage(1_000_000, 400_000, 100_000), MINI) == pytest.approx(0.6 * 0.75 + 0.4 * 0.075 + 0.1 * 4.5)


def test_bounds_of_an_appending_transcript():
    # turn 1 reads 100 and writes 10; turn 2 re-reads those 110 (100 cached) plus 20 new, writes 5
    t = [Usage(100, 0, 10), Usage(130, 100, 5)]
    assert fresh_input_tokens(t) == 120
    b = bounds([t], MINI)
    assert b.no_cache == pytest.approx((230 * 0.75 + 15 * 4.5) / 1e6)
    assert b.perfect == pytest.approx((120 * 0.75 + 15 * 4.5) / 1e6)
    assert b.measured == pytest.approx((130 * 0.75 + 100 * 0.075 + 15 * 4.5) / 1e6)
    assert b.share == pytest.approx((b.no_cache - b.measured) / (b.no_cache - b.perfect))
    assert 0 < b.share < 1 and b.no_cache > b.perfect


def test_single_calls_have_no_caching_room():
    b = bounds([[Usage(50, 0, 5)], [Usage(70, 0, 1)]], MINI)
    assert b.no_cache == b.perfect == b.measured and math.isnan(b.share)
