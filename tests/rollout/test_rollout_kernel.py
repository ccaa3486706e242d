"""The numba kernel reproduces the plain networkx reference exactly, for every retrieval design."""

import numpy as np
import pytest

from tailmem.graphworld.build import world_from_config
from tailmem.rollout.randomness import draw_uniforms
from tailmem.rollout.reference import reference_rollout
from tailmem.rollout.run import kernel_rollout, rollout
from tailmem.settings.rollout import DESIGNS, STARTS, RetrievalGroup, RolloutGroup

GRAPHS = {
    "scale_free": dict(family="scale_free", n=40, m=2),
    "modular": dict(family="modular", n=36, communities=3, k_in=4.0, k_out=0.5),
    "exponential": dict(family="exponential", n=40, mean_degree=3, min_degree=1),
}


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def world(request):
    return world_from_config(GRAPHS[request.param], seed=4)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("k", [1, 3, 8])
def test_kernel_equals_reference(world, design, k):
    uniforms = draw_uniforms(seed=9, episodes=6, steps=50, retrieval_draws=k)
    fast = kernel_rollout(world.indptr, world.targets, design, k, uniforms, progress=False)
    ref = reference_rollout(world.to_networkx(), design, k, uniforms)
    assert np.array_equal(fast.counts, ref.counts)
    for name in ("states", "actions", "episode", "access_step", "access_item"):
        assert np.array_equal(getattr(fast, name), getattr(ref, name)), name


@pytest.mark.parametrize("start", STARTS)
def test_kernel_equals_reference_under_every_start_rule(world, start):
    uniforms = draw_uniforms(seed=3, episodes=7, steps=20, retrieval_draws=3)
    fast = kernel_rollout(world.indptr, world.targets, "state_aware_frequency", 3, uniforms, progress=True, start=start)
    ref = reference_rollout(world.to_networkx(), "state_aware_frequency", 3, uniforms, start=start)
    for name in ("states", "actions", "access_item", "counts"):
        assert np.array_equal(getattr(fast, name), getattr(ref, name)), name


def test_start_rules_place_each_episode_as_documented(world):
    uniforms = draw_uniforms(seed=5, episodes=6, steps=15, retrieval_draws=0)
    first = [int(e * 15) for e in range(6)]
    drawn = np.minimum((uniforms.start * world.n).astype(int), world.n - 1)
    run = {s: kernel_rollout(world.indptr, world.targets, "none", 0, uniforms, progress=False, start=s) for s in STARTS}
    assert list(run["uniform"].states[first]) == list(drawn)
    assert set(run["fixed"].states[first]) == {drawn[0]}
    walk = run["continue"]
    assert walk.states[0] == drawn[0]
    assert all(walk.states[t] == world.targets[walk.actions[t - 1]] for t in first[1:])


def test_chunked_kernel_run_equals_one_call(world):
    """A shown progress bar splits the run into chunks; the draws and the memory must not notice."""
    uniforms = draw_uniforms(seed=2, episodes=120, steps=10, retrieval_draws=3)
    one = kernel_rollout(world.indptr, world.targets, "state_aware_frequency", 3, uniforms, progress=False)
    chunked = kernel_rollout(world.indptr, world.targets, "state_aware_frequency", 3, uniforms, progress=True)
    assert np.array_equal(one.access_item, chunked.access_item) and np.array_equal(one.counts, chunked.counts)


def test_python_path_equals_kernel(world):
    """`rollout` with an explicit policy object takes the per-step path (the later LLM path): same trace."""
    from tailmem.rollout.policy import RandomWalk

    length, retrieval = RolloutGroup(episodes=3, steps=40, start="uniform"), RetrievalGroup(name="recency", k=4)
    fast = rollout(world, length, retrieval, 1, progress=False)
    slow = rollout(world, length, retrieval, 1, policy=RandomWalk(), progress=False)
    assert np.array_equal(fast.access_item, slow.access_item) and np.array_equal(fast.actions, slow.actions)


def test_the_warm_servers_kernel_load_covers_a_real_rollouts_argument_types():
    """`load_kernel` (run once by the warm server) loads the machine code for exactly the types a rollout of a
    real world passes: the rollout afterwards adds no signature to numba's dispatcher (it would load again)."""
    import subprocess
    import sys

    code = """
from tailmem.graphworld.build import world_from_config
from tailmem.rollout import kernel, run
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup
run.load_kernel()
loaded = list(kernel.walk_kernel.signatures)
world = world_from_config(dict(family="scale_free", n=40, m=2), seed=4)
length = RolloutGroup(episodes=2, steps=20, start="uniform")
run.rollout(world, length, RetrievalGroup(name="state_aware_frequency", k=3), 1, progress=False)
print(len(loaded), len(kernel.walk_kernel.signatures))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["1", "1"]
