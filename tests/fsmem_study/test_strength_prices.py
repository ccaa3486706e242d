"""The RQ3 grid refuses to start while one of its models has no price (checked before the first job)."""

import pytest

from tailmem.errors import ConfigError
from tailmem.fsmem.run_list import check_strength_prices
from tailmem.workflow import compose_config


def test_unpriced_grid_model_is_named_before_any_job(tmp_path):
    check_strength_prices(compose_config("smoke"))  # offline: a programmatic 1 x 1 grid needs no price
    with pytest.raises(ConfigError, match="strength.builders: .*'gpt-5.4-nano'.*llm.prices_file"):
        check_strength_prices(compose_config("smoke", ["llm=openai"]))
    prices = tmp_path / "prices.yaml"
    prices.write_text("gpt-5.4-nano: {input: 1.0, cached_input: 0.1, output: 4.0}  # test values, not real prices\n")
    with pytest.raises(ConfigError, match="'gpt-5.4'"):
        check_strength_prices(compose_config("smoke", ["llm=openai", f"llm.prices_file={prices}"]))
    prices.write_text(prices.read_text() + "gpt-5.4: {input: 1.0, cached_input: 0.1, output: 4.0}\n")
    check_strength_prices(compose_config("smoke", ["llm=openai", f"llm.prices_file={prices}"]))
