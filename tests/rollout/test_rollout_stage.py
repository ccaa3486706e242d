"""The graphworld and rollout stages end to end through the CLI, and the trace file's checks."""

import numpy as np
import pytest

from tailmem.cli import main
from tailmem.errors import ArtifactError
from tailmem.graphworld.world import World
from tailmem.records.rollout import RolloutTrace
from tailmem.rollout.trace import Trace

GRAPH = ["graph=scale_free", "graph.n=40", "seed=1"]


@pytest.fixture(scope="module")
def stage_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("stages")
    world_dir, trace_dir = root / "world", root / "trace"
    assert main(["graphworld", *GRAPH, f"out={world_dir}"]) == 0
    args = [
        "rollout",
        *GRAPH,
        "retrieval=state_aware_frequency",
        "scale=smoke",
        f"input={world_dir}",
        f"out={trace_dir}",
    ]
    assert main(args) == 0
    return root, world_dir, trace_dir, args


def test_stages_write_artifacts_and_provenance(stage_run):
    _, world_dir, trace_dir, _ = stage_run
    world = World.load(world_dir / "world.json")
    trace = Trace.load(trace_dir / "trace.npz")
    assert world.family == "scale_free" and world.n == 40 and trace.n == 40
    assert trace.total_steps == 5 * 40  # the smoke scale: 5 episodes of 40 steps
    assert trace.counts.sum() == trace.total_accesses > trace.total_steps
    for folder in (world_dir, trace_dir):
        assert (folder / "config.yaml").exists() and (folder / "meta.json").exists()
    assert '"retrieval": "state_aware_frequency"' in (trace_dir / "meta.json").read_text()
    assert not [p for p in trace_dir.parent.rglob("*.tmp*")]


def test_rerun_is_identical(stage_run, tmp_path):
    _, _, trace_dir, args = stage_run
    assert main([*args[:-1], f"out={tmp_path}"]) == 0
    a, b = Trace.load(trace_dir / "trace.npz"), Trace.load(tmp_path / "trace.npz")
    assert np.array_equal(a.access_item, b.access_item) and np.array_equal(a.states, b.states)


def test_rollout_generates_a_missing_default_world(tmp_path):
    assert main(["rollout", *GRAPH, "retrieval=none", "scale=smoke", f"results_dir={tmp_path}"]) == 0
    assert (tmp_path / "graphworld/scale_free/n40/seed1/world.json").exists()
    assert (tmp_path / "rollout/random_walk/programmatic/none/scale_free/n40/seed1/trace.npz").exists()


@pytest.mark.parametrize("bad", [["retrieval.name=oracle"], ["rollout.steps=0"], ["graph.n=41"], ["seed=2"]])
def test_rollout_writes_nothing_on_a_bad_config_or_mismatched_world(stage_run, tmp_path, bad):
    _, world_dir, _, _ = stage_run
    out = tmp_path / "out"
    assert main(["rollout", *GRAPH, "scale=smoke", f"input={world_dir}", f"out={out}", *bad]) == 1
    assert not out.exists()


def test_missing_input_world_fails(tmp_path):
    assert main(["rollout", *GRAPH, f"input={tmp_path / 'nowhere'}", f"out={tmp_path / 'out'}"]) == 1
    assert not (tmp_path / "out").exists()


def test_trace_file_checks(stage_run, tmp_path):
    _, _, trace_dir, _ = stage_run
    trace = Trace.load(trace_dir / "trace.npz")
    path = tmp_path / "trace.npz"
    fields = {
        name: getattr(trace, name) for name in ("states", "actions", "episode", "access_step", "access_item", "counts")
    }
    RolloutTrace({**fields, "counts": fields["counts"] + 1}).write(path)
    with pytest.raises(ArtifactError, match="trace.npz.*counts"):
        Trace.load(path)
    np.savez(path, **{k: v for k, v in fields.items() if k != "episode"}, format_version=RolloutTrace.format_version)
    with pytest.raises(ArtifactError, match="trace.npz.*missing arrays \\['episode'\\]"):
        Trace.load(path)
    np.savez(path, **fields)  # an old trace, before the version
    with pytest.raises(ArtifactError, match="trace.npz.*no format_version.*--forcerun rollout`"):
        Trace.load(path)
    path.write_bytes((trace_dir / "trace.npz").read_bytes()[:100])
    with pytest.raises(ArtifactError, match="trace.npz"):
        Trace.load(path)
