"""Every bad graph config fails with a ConfigError naming its key, before anything is written."""

import pytest

from tailmem.cli import main
from tailmem.errors import ConfigError
from tailmem.graphworld.build import world_from_config

BAD = [
    (dict(family="triangle", n=50), "graph.family", "scale_free"),  # the message lists the options
    (dict(family="uniform", n=0, degree=4), "graph.n", ">= 10"),
    (dict(family="uniform", n=5, degree=4), "graph.n", ">= 10"),
    (dict(family="uniform", n="many", degree=4), "graph.n", "integer"),
    (dict(family="uniform", degree=4), "graph.n", "missing"),
    (dict(family="uniform", n=50), "graph.degree", "missing"),
    (dict(family="uniform", n=50, degree=50), "graph.degree", "3, 49"),
    (dict(family="uniform", n=51, degree=3), "graph.degree", "even"),
    (dict(family="uniform", n=50, degree=2), "graph.degree", "rarely connected"),
    (dict(family="uniform", n=50, degree=4.5), "graph.degree", "integer"),
    (dict(family="exponential", n=50, mean_degree=1, min_degree=1), "graph.mean_degree", "> 1"),
    (dict(family="exponential", n=50, mean_degree=4, min_degree=0), "graph.min_degree", "1, 48"),
    (dict(family="scale_free", n=50, m=0), "graph.m", "1, 49"),
    (dict(family="scale_free", n=50, m=50), "graph.m", "1, 49"),
    (dict(family="modular", n=50, communities=1, k_in=4.0, k_out=0.5), "graph.communities", ">= 2"),
    (dict(family="modular", n=12, communities=5, k_in=1.0, k_out=0.5), "graph.n", "3 states per community"),
    (dict(family="modular", n=50, communities=5, k_in=12.0, k_out=0.5), "graph.k_in", "<= 9"),
    (dict(family="modular", n=50, communities=5, k_in=4.0, k_out=-1), "graph.k_out", ">= 0"),
    (dict(family="mixed", n=50, communities=3, degree=2, bridges=2), "graph.degree", ">= 3"),
    (dict(family="mixed", n=12, communities=3, degree=4, bridges=2), "graph.n", "graph.n >= 15"),
    (dict(family="mixed", n=33, communities=3, degree=5, bridges=2), "graph.degree", "even"),
    (dict(family="mixed", n=50, communities=3, degree=4, bridges=0), "graph.bridges", "1, 272"),
    (dict(family="mixed", n=50, communities=3, degree=4, bridges=10**6), "graph.bridges", "1, 272"),
    (dict(family="baseline_symmetric", n=50, degree=3), "graph.degree", "even"),
    (dict(family="baseline_symmetric", n=50, degree=50), "graph.degree", "2, 49"),
]


@pytest.mark.parametrize("graph, key, expected", BAD, ids=[f"{g['family']}-{k}-{i}" for i, (g, k, _) in enumerate(BAD)])
def test_bad_graph_config_names_its_key(graph, key, expected):
    with pytest.raises(ConfigError) as info:
        world_from_config(graph, seed=0)
    assert str(info.value).startswith(key) and expected in str(info.value)


def test_bad_seed_names_its_key():
    with pytest.raises(ConfigError, match="^seed=-1"):
        world_from_config(dict(family="scale_free", n=50, m=2), seed=-1)


@pytest.mark.parametrize(
    "overrides",
    [
        ["graph.family=triangle"],
        ["graph=uniform", "graph.degree=100"],
        ["graph=scale_free", "graph.n=3"],
        ["graph=modular", "graph.k_in=40"],
        ["graph=baseline_symmetric", "graph.degree=5"],
    ],
)
def test_stage_writes_nothing_on_a_bad_config(tmp_path, overrides):
    out = tmp_path / "out"
    code = main(["graphworld", *overrides, f"out={out}", f"results_dir={tmp_path / 'results'}"])
    assert code == 1
    assert list(tmp_path.iterdir()) == []
