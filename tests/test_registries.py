"""Conformance of the registries (issue 30, "a conformance test iterates each registry and checks every entry end to
end on the smoke data"): every controller in `memory.controllers.CONTROLLERS` runs the control stage, every harness in
`fsmem.harnesses.HARNESSES` builds a store and answers through the fsmem stages, and every judge in
`judges.panel.JUDGES` gives a verdict on those answers. A new entry is checked here with no edit to this file.
(Benchmarks: `tests/test_extending.py::test_every_registered_benchmark_...`; arms the studies name:
`tests/memory/test_arm.py`.)"""

import pytest
import yaml

from tailmem import paths
from tailmem.cli import main
from tailmem.configs import config_dir
from tailmem.fsmem.harnesses import HARNESSES
from tailmem.judges import panel
from tailmem.memory.arm_names import ArmName as Arm
from tailmem.memory.controllers import CONTROLLERS
from tailmem.records.control import ControlSteps, ControlSummary
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild

pytestmark = pytest.mark.slow

WORLD = ["scale=smoke", "graph=modular", "graph.n=30", "policy=semantic", "seed=0"]
QUESTIONS = 3  # answers each judge scores
SMOKE_CHAT = "Chat_1_Emi_Elise"  # configs/scale/smoke.yaml fsmem.realtalk.chats
SMOKE_QUESTIONS = 10  # configs/scale/smoke.yaml fsmem.max_questions: each harness answers every one


@pytest.fixture(scope="module")
def rollout(tmp_path_factory):
    """One smoke world and its rollout, shared by every controller."""
    results = tmp_path_factory.mktemp("registries")
    common = [*WORLD, f"results_dir={results}"]
    assert main(["graphworld", *common]) == 0
    assert main(["rollout", *common]) == 0
    return results, common


@pytest.mark.parametrize("name", sorted(CONTROLLERS))
def test_every_controller_runs_the_control_stage_within_its_budget(rollout, name):
    results, common = rollout
    shipped = yaml.safe_load((config_dir() / "memory" / f"{name}.yaml").read_text())
    assert main(["control", f"memory={name}", *common]) == 0
    folder = results / "control/semantic/programmatic/recency/modular/n30/seed0/programmatic" / name
    summary = ControlSummary.read(folder / paths.SUMMARY_FILE)
    steps = ControlSteps.read(folder / "steps.parquet").frame
    assert (summary.arm, summary.controller, summary.label) == (name, name, shipped["label"])
    assert str(Arm.parse(summary.arm)) == name
    assert summary.predicted_steps == len(steps) > 0
    assert 0.0 <= summary.overall_error <= 1.0 and 0.0 <= summary.overall_coverage <= 1.0
    if summary.budget is not None:  # Full History and the Sliding Window have none
        assert summary.budget == shipped["budget"]
        assert summary.memory_tokens_per_step <= summary.budget


@pytest.fixture(scope="module")
def answered(smoke):
    """Each harness's store and answers, built through the stages by the session's smoke run: its RQ5 study builds
    and searches one REALTALK store through every harness of the registry (`fsmem.study.harnesses: null`)."""
    results = smoke.workdir / "results" / "smoke"
    out = {}
    for name in sorted(HARNESSES):
        store = paths.harness_build_dir(results, "realtalk", SMOKE_CHAT, name, "agent_curated", main_harness="center")
        out[name] = (FsmemBuild.read(store / paths.BUILD_FILE), paths.answers_dir(store, name) / paths.ANSWERS_FILE)
    return out


@pytest.mark.parametrize("name", sorted(HARNESSES))
def test_every_harness_builds_and_answers_through_the_stages(answered, name):
    build, answers_file = answered[name]
    answers = FsmemAnswers.read(answers_file)
    assert build.build_harness == name and build.store["files"] > 0
    assert answers.harness == name and len(answers.rows) == SMOKE_QUESTIONS
    assert all(row["search_trace"] for row in answers.rows), "the searcher used no tool of the harness"


@pytest.mark.parametrize("judge", panel.JUDGES)
def test_every_judge_gives_a_verdict_on_every_answer(answered, judge):
    """The offline rule of each judge (the model plays them in the slice: tests/judges/test_panel.py)."""
    _, answers_file = answered[sorted(HARNESSES)[0]]
    rows = FsmemAnswers.read(answers_file).rows[:QUESTIONS]
    items = [panel.locomo_item(r["question"], r["gold"], r["answer"], r["qid"], r["category"]) for r in rows]
    verdicts = panel.judge_all(None, judge, items)
    assert len(verdicts) == QUESTIONS and {v.correct for v in verdicts} <= {0.0, 1.0}
