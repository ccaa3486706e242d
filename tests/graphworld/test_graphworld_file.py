"""world.json round-trips exactly, and any corrupt or inconsistent file is refused with its name."""

import json

import numpy as np
import pytest

from tailmem.errors import ArtifactError
from tailmem.graphworld.build import world_from_config
from tailmem.graphworld.world import World


@pytest.fixture(scope="module")
def world():
    return world_from_config(dict(family="modular", n=30, communities=3, k_in=4.0, k_out=1.0), seed=2)


def test_round_trip(world, tmp_path):
    loaded = World.load(world.save(tmp_path / "world.json"))
    for name in ("family", "n", "seed", "params", "construction", "action_names", "state_texts"):
        assert getattr(loaded, name) == getattr(world, name)
    for name in ("indptr", "targets", "community"):
        assert np.array_equal(getattr(loaded, name), getattr(world, name))
    assert not loaded.targets.flags.writeable


def _rewrite(world, tmp_path, edit):
    data = world.to_json()
    edit(data)
    path = tmp_path / "world.json"
    path.write_text(json.dumps(data))
    return path


def _swap_first_row(d):
    d["targets"][0], d["targets"][1] = d["targets"][1], d["targets"][0]


def _drop_last_direction(d):
    """Remove the last state's last action only (its reverse direction stays)."""
    d["targets"].pop()
    d["action_names"].pop()
    d["indptr"][-1] -= 1
    d["n_edges"] = len(d["targets"]) // 2


CORRUPTIONS = {
    "format": lambda d: d.update(format="tailmem.world/1"),  # the key the files had before format_version
    "missing key": lambda d: d.pop("targets"),
    "short indptr": lambda d: d["indptr"].pop(),
    "target out of range": lambda d: d["targets"].__setitem__(0, 10_000),
    "unsorted row": _swap_first_row,
    "asymmetric edge": _drop_last_direction,
    "text count": lambda d: d["state_texts"].pop(),
    "action count": lambda d: d["action_names"].pop(),
    "repeated action name": lambda d: d["action_names"].__setitem__(1, d["action_names"][0]),
    "string targets": lambda d: d.update(targets=["a"] * len(d["targets"])),
    "n_edges": lambda d: d.update(n_edges=d["n_edges"] + 1),
}


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
def test_inconsistent_file_is_refused_with_its_name(world, tmp_path, name):
    path = _rewrite(world, tmp_path, CORRUPTIONS[name])
    with pytest.raises(ArtifactError, match="world.json"):
        World.load(path)


def test_truncated_and_missing_files_are_refused(world, tmp_path):
    path = world.save(tmp_path / "world.json")
    path.write_text(path.read_text()[: len(path.read_text()) // 2])
    with pytest.raises(ArtifactError, match="world.json"):
        World.load(path)
    with pytest.raises(ArtifactError, match="nowhere.json"):
        World.load(tmp_path / "nowhere.json")


def test_disconnected_file_is_refused(tmp_path):
    # two triangles: valid CSR, symmetric, sorted, but not connected
    rows = [[1, 2], [0, 2], [0, 1], [4, 5], [3, 5], [3, 4]]
    world = World(
        "uniform",
        6,
        0,
        {},
        np.cumsum([0] + [len(r) for r in rows]),
        [v for r in rows for v in r],
        [f"a{i}" for i in range(12)],
        [f"s{i}" for i in range(6)],
    )
    path = world.save(tmp_path / "world.json")
    with pytest.raises(ArtifactError, match="world.json.*not connected"):
        World.load(path)
