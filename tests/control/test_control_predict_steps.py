"""The controller study with a model predictor on a subset of steps (`control.predict_steps`), and the
programmatic default left as it was."""

import numpy as np
import pandas as pd
import pytest
from test_control import counter, walk

from tailmem.cli import main
from tailmem.control.predict import (
    ModelPredictor,
    Prediction,
    ProgrammaticPredictor,
    full_prompt,
    parse_state,
)
from tailmem.control.replay import predict_steps, replay, summarize, tail_states
from tailmem.graphworld.build import build_world
from tailmem.llm.records import ChatResponse, Usage
from tailmem.memory.controllers import make_controller
from tailmem.records.control import ControlSummary


@pytest.fixture(scope="module")
def world():
    return build_world("modular", 60, {"communities": 4, "k_in": 4.0, "k_out": 0.5}, 0)


@pytest.fixture(scope="module")
def trajectory(world):
    return walk(world)


class FakeClient:
    """A chat model that answers the first state code its prompt's memory names (or UNKNOWN), recording prompts."""

    backend, model, hits, misses = "fake", "fake-model", 0, 0

    def __init__(self):
        self.prompts: list[str] = []

    def chat(self, messages, **_):
        prompt = messages[-1]["content"]
        self.prompts.append(prompt)
        memory = prompt.split("Memory:\n", 1)[1]
        codes = [w for w in memory.split() if w.startswith("S") and w[1:].isdigit()]
        return ChatResponse(codes[0] if codes else "UNKNOWN", (), Usage(10, 0, 2), self.model, False, 0.0)


class Recorder:
    """The programmatic predictor, recording the whole prompt of every step it is asked at."""

    name = "programmatic-memory"

    def __init__(self):
        self.prompts: list[str] = []

    def predict(self, block, state, text, action) -> Prediction:
        self.prompts.append(full_prompt(block, state, text, action))
        return ProgrammaticPredictor().predict(block, state, text, action)


def test_predict_steps_spreads_evenly_takes_the_last_or_every_step():
    assert predict_steps(300, None) == list(range(300))
    assert predict_steps(300, 300) == list(range(300)) and predict_steps(10, 50) == list(range(10))
    even = predict_steps(300, 7)
    assert even == [0, 50, 100, 150, 199, 249, 299] and len(even) == 7
    assert predict_steps(300, 4, "last") == [296, 297, 298, 299]
    with pytest.raises(ValueError, match="spread"):
        predict_steps(300, 4, "random")


@pytest.mark.parametrize("spread", ["even", "last"])
def test_the_model_predicts_at_exactly_the_configured_steps(world, trajectory, spread):
    states, edges = trajectory
    every = Recorder()
    full = replay(world, states, edges, make_controller({"name": "ctmc", "budget": 40}), every, counter())
    at = predict_steps(len(states), 12, spread)
    client = FakeClient()
    sub = replay(
        world,
        states,
        edges,
        make_controller({"name": "ctmc", "budget": 40}),
        ModelPredictor(client),
        counter(),
        predict_at=at,
    )
    assert client.prompts == [every.prompts[t] for t in at]  # the same prompts as the full replay's, at those steps
    assert sub.steps.step.tolist() == at
    # memory is built and written at every step: the same accesses and tokens per step as the full replay
    assert np.array_equal(sub.counts, full.counts)
    assert sub.replayed.step.tolist() == list(range(len(states)))
    assert sub.replayed.prompt_tokens.tolist() == full.steps.prompt_tokens.tolist()
    kept = sub.steps[sub.steps.memory.notna()].step.tolist()
    assert kept and set(kept) <= set(at)  # the site's blocks are predicted steps


def test_error_and_coverage_are_scored_over_the_predicted_steps_only(world, trajectory):
    states, edges = trajectory
    at = predict_steps(len(states), 20)
    predictor = ModelPredictor(FakeClient())
    r = replay(
        world,
        states,
        edges,
        make_controller({"name": "graph_memory", "budget": 40}),
        predictor,
        counter(),
        predict_at=at,
    )
    s = summarize(r)
    steps = r.steps
    assert (s["steps"], s["predicted_steps"]) == (300, 20) and len(steps) == 20
    tail = np.isin(steps.state, tail_states(steps, r.counts))  # the least-accessed half of the states predicted at
    assert set(tail_states(steps, r.counts)) <= set(steps.state)
    assert s["overall_error"] == pytest.approx(1 - steps.correct.mean())
    assert s["tail_error"] == pytest.approx(1 - steps.correct[tail].mean())
    assert s["overall_coverage"] == pytest.approx(steps.covered.mean())
    assert s["tail_coverage"] == pytest.approx(steps.covered[tail].mean())
    assert s["tail_steps"] == int(tail.sum())
    assert s["tokens_per_step"] == pytest.approx(r.replayed.prompt_tokens.mean())  # over all 300 steps
    assert predictor.calls == 20 and predictor.unknown + predictor.malformed == int((steps.predicted < 0).sum())


# summarize() of the programmatic predictor on this walk before `predict_steps` existed (commit 9378d42)
BEFORE = {
    "graph_memory": (
        {"name": "graph_memory", "budget": 40},
        724,
        dict(
            tokens_per_step=101.53666666666666,
            memory_tokens_per_step=31.733333333333334,
            overall_error=0.4833333333333333,
            tail_error=0.5529411764705883,
            overall_coverage=0.48333333333333334,
            tail_coverage=0.3764705882352941,
            tail_steps=85,
        ),
    ),
    "ctmc": (  # re-pinned when the last room began to take skipped items' headers (Table 6's arms had spent
        {"name": "ctmc", "budget": 40},  # unequal tokens at one matched budget): more accesses, the same error
        889,
        dict(
            tokens_per_step=103.76,
            memory_tokens_per_step=33.74333333333333,
            overall_error=0.5533333333333333,
            tail_error=0.5666666666666667,
            overall_coverage=0.41,
            tail_coverage=0.37777777777777777,
            tail_steps=90,
        ),
    ),
    "ctmc_verbose_uniform": (  # re-pinned when summaries began to carry their exits and the note stopped
        {"name": "ctmc", "budget": 60, "encoding": "verbose", "tau": 0.0},  # evicting the current item
        1295,
        dict(
            tokens_per_step=126.04666666666667,
            memory_tokens_per_step=50.776666666666664,
            overall_error=0.7866666666666666,
            tail_error=0.6419753086419753,
            overall_coverage=0.023333333333333334,
            tail_coverage=0.07407407407407407,
            tail_steps=81,
        ),
    ),
}


@pytest.mark.parametrize("arm", sorted(BEFORE))
def test_the_programmatic_default_predicts_every_step_as_before(world, trajectory, arm):
    states, edges = trajectory
    mem_cfg, accesses, before = BEFORE[arm]
    r = replay(world, states, edges, make_controller(mem_cfg), ProgrammaticPredictor(), counter())
    s = summarize(r)
    assert r.tokens is None and r.steps.step.tolist() == list(range(300))
    assert (s["steps"], s["predicted_steps"]) == (300, 300) and int(r.counts.sum()) == accesses
    assert {k: s[k] for k in before} == pytest.approx(before)
    # asking for every step explicitly is the same replay
    again = replay(
        world, states, edges, make_controller(mem_cfg), ProgrammaticPredictor(), counter(), predict_at=list(range(300))
    )
    cols = [c for c in r.steps.columns if c != "marks"]
    assert again.steps[cols].equals(r.steps[cols]) and summarize(again) == s


def test_replies_are_read_in_both_encodings_forms():
    assert parse_state("S12") == 12 and parse_state("yes S3") == 3
    assert parse_state("It leads to state 7.") == 7  # the verbose encoding writes "state 7"
    assert parse_state("333") == 333  # a bare number, as the model answers under the verbose encoding
    assert parse_state("From state 12 the path leads to S15") == 15  # a code first
    assert parse_state("UNKNOWN") is None and parse_state("12 or 13") is None and parse_state("") is None


@pytest.mark.slow
def test_control_stage_with_a_model_predictor_on_a_subset_of_steps(tmp_path, monkeypatch):
    import tailmem.studies.controller.control as stage

    common = ["scale=smoke", f"results_dir={tmp_path}", "graph=modular", "graph.n=30", "policy=semantic", "seed=0"]
    assert main(["graphworld", *common]) == 0
    assert main(["rollout", *common]) == 0
    client = FakeClient()
    monkeypatch.setattr(stage, "make_predictor", lambda cfg: ModelPredictor(client))
    assert main(["control", "memory=ctmc", "control.arm=ctmc-compact", "control.predict_steps=9", *common]) == 0
    out = tmp_path / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic/ctmc-compact"
    summary = ControlSummary.read(out / "summary.json")
    steps = pd.read_parquet(out / "steps.parquet")
    assert len(client.prompts) == 9 and steps.step.tolist() == predict_steps(5 * 40, 9)
    assert (summary.steps, summary.predicted_steps, summary.predict_steps) == (200, 9, 9)
    assert summary.predictor == "fake:fake-model" and summary.predict_spread == "even"
    assert summary.overall_error == pytest.approx(1 - steps.correct.mean())
    assert summary.predictor_unknown + summary.predictor_malformed == int((steps.predicted < 0).sum())
    # the programmatic default: every step, no model fields
    monkeypatch.undo()
    assert main(["control", "memory=ctmc", "control.arm=ctmc-compact", f"out={tmp_path}/default", *common]) == 0
    default = ControlSummary.read(tmp_path / "default/summary.json")
    assert (default.steps, default.predicted_steps, default.predict_steps) == (200, 200, None)
    assert default.predictor == "programmatic-memory" and default.predictor_label == "programmatic"
    assert default.predictor_unknown is None and default.predictor_malformed is None
    assert default.tokens_per_step == pytest.approx(summary.tokens_per_step)  # tokens: every replayed step
    assert main(["control", "memory=ctmc", "control.predict_steps=0", *common]) == 1  # >= 1 or null


def test_replay_steps_cuts_the_trajectory_to_its_first_steps():
    """`control.replay_steps`: the rollout may be as long as the tail audit needs; the controller study replays the
    first N steps of it (issue 29), and all of it when N is null or longer than the trace."""
    from tailmem.control.replay import replayed
    from tailmem.rollout.trace import Trace

    states = np.arange(10) % 4
    trace = Trace(states, states, np.zeros(10), np.arange(10), states, np.bincount(states, minlength=4))
    s, a = replayed(trace, 6)
    assert list(s) == list(states[:6]) and list(a) == list(states[:6])
    assert len(replayed(trace, None)[0]) == 10 and len(replayed(trace, 50)[0]) == 10
