"""The controller study: world memory, the programmatic predictor, matched replay, arms and the stage."""

import numpy as np
import pytest

from tailmem.cli import main
from tailmem.control import arms
from tailmem.control.predict import (
    ProgrammaticPredictor,
    find_evidence,
    mentioned_regions,
)
from tailmem.control.replay import replay, summarize, tail_states
from tailmem.control.world_memory import WorldMemory, place_and_region, short_action
from tailmem.errors import ConfigError
from tailmem.graphworld.build import build_world
from tailmem.memory import arm_names
from tailmem.memory.controllers import make_controller
from tailmem.memory.tokens import TokenCounter
from tailmem.records.control import ControlSummary


@pytest.fixture(scope="module")
def world():
    return build_world("modular", 60, {"communities": 4, "k_in": 4.0, "k_out": 0.5}, 0)


def walk(world, steps=300, seed=0):
    rng = np.random.default_rng(seed)
    states, edges, s = [], [], 0
    for _ in range(steps):
        e = world.edge(s, int(rng.integers(world.degree(s))))
        states.append(s)
        edges.append(e)
        s = int(world.targets[e])
    return np.array(states), np.array(edges)


def counter():
    return TokenCounter(count=lambda text: len(text.split()))


def test_item_texts_name_place_region_and_transition(world):
    mem = WorldMemory(world)
    nxt = world.step(0, 0)
    mem.learn(0, 0, 0, nxt)
    item = mem.store.items[0]
    place, region = place_and_region(world.state_texts[0])
    assert item.compact[0] == f"S0 {place}/{region}"
    assert item.compact[1] == f"  {short_action(world.actions(0)[0])}>S{nxt}"
    assert item.summary.startswith(f"S0 {place}/{region} (1/")
    assert mem.related(0) == (nxt,) and mem.related(nxt) == (0,)


@pytest.mark.parametrize("encoding", ["compact", "verbose"])
def test_evidence_is_found_only_when_the_transition_is_in_the_block(world, encoding):
    mem = WorldMemory(world)
    nxt = world.step(3, 1)
    mem.learn(0, 3, 1, nxt)
    block = "\n".join(mem.store.items[3].lines(encoding))
    assert find_evidence(block, 3, world.actions(3)[1]) == nxt
    other = 0 if world.degree(3) > 1 else None
    if other is not None:
        assert find_evidence(block, 3, world.actions(3)[other]) is None
    assert find_evidence(block, 4, world.actions(3)[1]) is None  # the same words under another state's header


def test_predictor_guesses_a_mentioned_state_of_the_hinted_region(world):
    s = 5
    a = 0
    target = world.step(s, a)
    summary_of_target = WorldMemory(world)
    summary_of_target.visit(target)
    block = summary_of_target.store.items[target].summary
    assert target in mentioned_regions(block)
    pred = ProgrammaticPredictor().predict(block, s, world.state_texts[s], world.actions(s)[a])
    assert pred.from_evidence is False
    assert pred.state == target  # the only state of the hinted region the block names
    assert ProgrammaticPredictor().predict("", s, world.state_texts[s], world.actions(s)[a]).state is None


def test_replay_is_deterministic_and_full_history_sees_every_transition_again(world):
    states, edges = walk(world)
    full = replay(world, states, edges, make_controller({"name": "full_history"}), ProgrammaticPredictor(), counter())
    again = replay(world, states, edges, make_controller({"name": "full_history"}), ProgrammaticPredictor(), counter())
    assert full.steps.equals(again.steps) and np.array_equal(full.counts, again.counts)
    seen = set()
    for row, e in zip(full.steps.itertuples(), edges):
        assert row.covered == (int(e) in seen)  # full history holds every transition taken before
        seen.add(int(e))
    assert (full.steps.correct >= full.steps.covered).all()  # evidence in the prompt is never misread


def test_tail_states_are_the_least_accessed_half(world):
    states, edges = walk(world, 200)
    r = replay(
        world,
        states,
        edges,
        make_controller({"name": "graph_memory", "budget": 40}),
        ProgrammaticPredictor(),
        counter(),
    )
    tail = tail_states(r.steps, r.counts)
    visited = np.unique(states)
    assert len(tail) == int(np.ceil(len(visited) / 2))
    rest = np.setdiff1d(visited, tail)
    assert r.counts[tail].max() <= r.counts[rest].min()
    s = summarize(r)
    assert 0 <= s["tail_error"] <= 1 and s["tokens_per_step"] > s["memory_tokens_per_step"]


def test_ctmc_keeps_the_tail_that_graph_memory_drops(world):
    states, edges = walk(world, 400)
    gm = replay(
        world,
        states,
        edges,
        make_controller({"name": "graph_memory", "budget": 30}),
        ProgrammaticPredictor(),
        counter(),
    )
    ct = replay(
        world, states, edges, make_controller({"name": "ctmc", "budget": 30}), ProgrammaticPredictor(), counter()
    )
    assert gm.steps.n_tail.sum() == 0 and ct.steps.n_tail.sum() > 0
    assert ct.steps.memory_tokens.max() <= 30


def test_arm_names_round_trip_to_overrides():
    assert arm_names.graph_overrides("graph_memory-verbose") == ["memory=graph_memory", "memory.encoding=verbose"]
    assert arm_names.graph_overrides(arms.ctmc("compact", 1.5, "reversed")) == [
        "memory=ctmc",
        "memory.encoding=compact",
        "memory.tau=1.5",
        "memory.order=reversed",
        "memory.budget=matched",
    ]
    assert arms.matched_reference(arms.ctmc("verbose")) == "graph_memory-verbose"
    assert arms.matched_reference("graph_memory-compact") is None
    assert len(set(arms.table6_arms())) == 4
    with pytest.raises(ConfigError, match="unknown part"):
        arm_names.graph_overrides("graph_memory-tau2")
    with pytest.raises(ConfigError, match="unknown controller"):
        arm_names.graph_overrides("magic-compact")


@pytest.mark.slow
def test_control_stage_matched_budget_end_to_end(tmp_path):
    common = ["scale=smoke", f"results_dir={tmp_path}", "graph=modular", "graph.n=30", "policy=semantic", "seed=0"]
    assert main(["graphworld", *common]) == 0
    assert main(["rollout", *common]) == 0
    assert main(["control", "memory=graph_memory", "control.arm=graph_memory-compact", *common]) == 0
    base = tmp_path / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic"  # policy agent, predictor
    gm = ControlSummary.read(base / "graph_memory-compact/summary.json")
    assert gm.predictor == "programmatic-memory" and gm.policy == "semantic"
    arm = arms.ctmc()
    assert (
        main(
            [
                "control",
                *arm_names.graph_overrides(arm),
                f"control.arm={arm}",
                f"control.matched_from={base}/graph_memory-compact/summary.json",
                *common,
            ]
        )
        == 0
    )
    ct = ControlSummary.read(base / arm / "summary.json")
    assert ct.budget_scope == gm.budget_scope == "prompt"  # the budget counts the whole prompt (paper 1's)
    assert ct.budget == round(gm.tokens_per_step)
    assert ct.memory_tokens_per_step < ct.tokens_per_step <= ct.budget + 2
    # a matched arm without its reference is a config error, and writes nothing
    assert main(["control", *arm_names.graph_overrides(arm), "control.arm=orphan", *common]) == 1
    assert not (base / "orphan").exists()
