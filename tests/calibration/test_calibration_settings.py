"""The calibration group's reader: every scale's group reads, and a bad value names its key."""

import pytest
import yaml

from tailmem.errors import ConfigError
from tailmem.studies.calibration.group import settings


@pytest.fixture(scope="module")
def group(repo_root):
    return yaml.safe_load((repo_root / "configs" / "calibration" / "default.yaml").read_text())


def test_the_default_group_reads_and_holds_out_one_family(group):
    s = settings({"calibration": group})
    assert s.holdout in s.families and s.holdout not in s.fitted and len(s.fitted) == len(s.families) - 1
    assert s.samples is None and s.sizes == [100, 500, 1000]


@pytest.mark.parametrize(
    "change, key",
    [
        ({"holdout": "baseline_symmetric"}, "calibration.holdout"),
        ({"families": ["uniform", "mixed"], "holdout": "modular"}, "calibration.holdout"),
        ({"sizes": [100]}, "calibration.sizes"),
        ({"sizes": [100, 200]}, "calibration.sizes"),
        ({"table8_size": 1000, "sizes": [100, 500]}, "calibration.table8_size"),
        ({"tolerance": 0}, "calibration.tolerance"),
        ({"samples": 0}, "calibration.samples"),
    ],
)
def test_a_bad_value_names_its_key(group, change, key):
    with pytest.raises(ConfigError, match=f"^{key}"):
        settings({"calibration": {**group, **change}})


def test_a_bad_space_value_names_its_key(group):
    with pytest.raises(ConfigError, match=r"^calibration\.space\.start"):
        settings({"calibration": {**group, "space": {**group["space"], "start": ["hub"]}}})
