import json

import numpy as np
import pytest
from omegaconf import OmegaConf

from record_kit import rollout_trace
from tailmem.audit.bootstrap import sample_discrete_power_law
from tailmem.errors import ArtifactError, ConfigError
from tailmem.records.audit import Audit, CountsBlock
from tailmem.studies.random_walk import audit as stage


def make_cfg(tmp_path, **audit_overrides):
    audit = {
        "top_fraction": 0.1,
        "bootstrap": 20,
        "gof_threshold": 0.1,
        "pl_alpha_max": 10.0,
        "tpl_alpha_max": 10.0,
        "min_tail": 50,
    }
    audit.update(audit_overrides)
    return OmegaConf.create(
        {
            "stage": "audit",
            "seed": 0,
            "results_dir": str(tmp_path / "results"),
            "input": str(tmp_path / "in"),
            "out": str(tmp_path / "out"),
            "graph": {"family": "uniform", "n": 300},
            "policy": {"name": "random_walk"},
            "retrieval": {"name": "recency", "k": 5},
            "audit": audit,
        }
    )


def write_trace(tmp_path, counts):
    rollout_trace(counts).write(tmp_path / "in" / "trace.npz")


def test_missing_trace_names_the_file_and_writes_nothing(tmp_path):
    with pytest.raises(ArtifactError, match=r"in/trace\.npz"):
        stage.run(make_cfg(tmp_path))
    assert not (tmp_path / "out").exists()


def test_corrupt_trace_names_the_file(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "trace.npz").write_bytes(b"not a zip")
    with pytest.raises(ArtifactError, match=r"trace\.npz"):
        stage.run(make_cfg(tmp_path))
    assert not (tmp_path / "out").exists()


def test_negative_counts_are_rejected(tmp_path):
    write_trace(tmp_path, np.array([3, -1, 2]))
    with pytest.raises(ArtifactError, match="non-negative"):
        stage.run(make_cfg(tmp_path))


@pytest.mark.parametrize(
    "key, value",
    [
        ("top_fraction", 1.5),
        ("top_fraction", 0.0),
        ("bootstrap", -1),
        ("bootstrap", 2.5),
        ("gof_threshold", 2.0),
        ("tpl_alpha_max", 1.0),
        ("pl_alpha_max", "ten"),
        ("min_tail", 0),
        ("min_tail", 2.5),
    ],
)
def test_bad_config_names_the_key(tmp_path, key, value):
    write_trace(tmp_path, np.arange(100))
    with pytest.raises(ConfigError, match=rf"audit\.{key}"):
        stage.run(make_cfg(tmp_path, **{key: value}))
    assert not (tmp_path / "out").exists()


def test_good_run_writes_the_schema(tmp_path):
    rng = np.random.default_rng(0)
    counts = np.r_[np.zeros(50, dtype=int), sample_discrete_power_law(1, 2.2, 250, rng).astype(int)]
    write_trace(tmp_path, counts)
    path = stage.run(make_cfg(tmp_path))
    audit = Audit.read(path)
    assert json.loads(path.read_text())["format_version"] == Audit.format_version
    tail = audit.tail
    assert set(tail.tpl) == {"alpha", "lambda"} and set(tail.lognormal) == {"mu", "sigma"}
    assert tail.status == "ok" and 1.5 < tail.alpha < 3.5
    assert audit.gof.B == 20 and 0 <= audit.gof.p <= 1
    assert audit.gof.passes == (audit.gof.p >= 0.1)
    assert audit.counts == CountsBlock(n_items=300, total=int(counts.sum()), nonzero=250)
    meta = json.loads((tmp_path / "out" / "meta.json").read_text())
    assert meta["agent"] == "random_walk" and (tmp_path / "out" / "config.yaml").exists()


def test_degenerate_trace_writes_nulls_not_nan(tmp_path):
    write_trace(tmp_path, np.full(60, 4))
    path = stage.run(make_cfg(tmp_path))
    text = path.read_text()
    assert "NaN" not in text
    audit = Audit.read(path)
    assert audit.tail.status == "degenerate" and audit.tail.alpha is None
    assert audit.gof.p is None and audit.gof.passes is None
    assert audit.concentration.gini == 0.0


def test_a_small_tail_writes_its_status_and_no_test(tmp_path):
    """Fewer than audit.min_tail points in the tail: status, xmin and n_tail in audit.json; no alpha, no p_gof."""
    write_trace(tmp_path, np.random.default_rng(0).poisson(30, 120))
    audit = Audit.read(stage.run(make_cfg(tmp_path)))
    tail = audit.tail
    assert tail.status == "tail_too_small" and tail.alpha is None and tail.n_tail < 50
    assert tail.alpha_at_cap is False and audit.gof.p is None and audit.gof.passes is None
    # the same trace with the minimum lowered is fitted, and its alpha is flagged as sitting at the cap
    again = Audit.read(stage.run(make_cfg(tmp_path, min_tail=1))).tail
    assert again.status == "ok" and again.alpha_at_cap is True


def test_repository_config_validates():
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir

    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        cfg = compose(config_name="config", overrides=["stage=audit", "scale=smoke"])
    s = stage.settings(cfg)
    assert s.bootstrap == cfg.audit.bootstrap and s.tpl_alpha_max > 3 and s.pl_alpha_max > 3
    assert s.min_tail == 50
