"""The warm server's compose warm-up (tailmem.cli.warm_up): it leaves no Hydra state behind for the jobs it forks,
and a job composes the same config after it as without it."""

from hydra.core.global_hydra import GlobalHydra
from omegaconf import OmegaConf

from tailmem import cli, warmstart
from tailmem.runner import compose_stage


def test_a_composition_after_the_warm_up_is_the_same_and_hydra_is_left_uninitialised():
    overrides = ["scale=smoke", "graph=modular", "graph.n=60", "seed=3", "retrieval=recency"]
    before = OmegaConf.to_yaml(compose_stage("audit", overrides), resolve=True)
    cli.warm_up()
    assert not GlobalHydra.instance().is_initialized()  # a forked job initialises its own
    assert OmegaConf.to_yaml(compose_stage("audit", overrides), resolve=True) == before


def test_the_server_warms_up_before_the_stage_modules():
    order = warmstart.preload_order()
    assert order.index("tailmem.cli:warm_up") < order.index("tailmem.studies.controller.control")
