"""LongMemEval's CTMC budget is the controller study's matched budget, resolved by the same function.

Finding: LongMemEval computed its own matched budget (`int(round(ratio * graph_tokens))` in evaluate.py) beside the
controller study's (`matched_budget` reading the Graph Memory arm's summary.json), so the two studies' "matched"
could drift apart. Now both call tailmem.memory.budget.resolve: given Graph Memory's spend on a question, the budget
a CTMC arm of LongMemEval spends is the one the controller study's stage gives a `-matched` arm reading a summary
with the same spend (times the arm's ratio).
"""

from types import SimpleNamespace

import pytest

from tailmem.data.longmemeval import Question, Session, Turn
from tailmem.errors import ConfigError
from tailmem.haystack.arms import make_arms
from tailmem.memory.budget import SpentPerStep, resolve
from tailmem.memory.tokens import TokenCounter
from tailmem.records.control import ControlSummary
from tailmem.studies.controller.control import arm_budget
from tailmem.studies.longmemeval.evaluate import build_prompts

RATIOS = (1.0, 0.7, 0.5)


def question() -> Question:
    """Five sessions of several turns: Graph Memory's whole sessions overflow a small budget, so its spend is a
    measured number below the budget rather than the budget itself."""
    sessions = tuple(
        Session(
            f"s{i}",
            f"2023/01/0{i + 1}",
            tuple(
                Turn("user" if k % 2 == 0 else "assistant", f"Session {i} turn {k}: my sister moved to city {i}{k}.")
                for k in range(6)
            ),
        )
        for i in range(5)
    )
    return Question("q1", "multi-session", "Where did my sister move?", "2023/02/01", "city 00", ("s0",), sessions)


def lme(**over) -> SimpleNamespace:
    base = dict(encoding="compact", arms=["graph_memory", "ctmc"], graph_budget=400, ctmc_ratios=list(RATIOS))
    return SimpleNamespace(**(base | dict(tau=1.0, flat_k=5) | over))


def summary(tmp_path, spent: SpentPerStep) -> str:
    """A Graph Memory arm's summary.json that spent `spent` per step (the other fields as a control job writes)."""
    metrics = dict(steps=1, predicted_steps=1, overall_error=0.0, tail_error=0.0, overall_coverage=1.0)
    s = ControlSummary(
        tokens_per_step=float(spent.tokens_per_step),
        memory_tokens_per_step=float(spent.memory_tokens_per_step),
        tail_coverage=1.0,
        tail_steps=1,
        **metrics,
        arm="graph_memory-compact",
        controller="graph_memory",
        label="Graph Memory",
        encoding="compact",
        budget=400,
        tau=None,
        order=None,
        predictor="programmatic-memory",
        predictor_label="programmatic",
        predict_steps=None,
        predict_spread="even",
        replay_steps=None,
        trace_steps=1,
        policy="semantic",
        retrieval="recency",
        family="modular",
        n=30,
        seed=0,
        tokenizer="o200k_base",
    )
    path = tmp_path / "summary.json"
    s.write(path)
    return str(path)


def controller_study_budget(tmp_path, spent: SpentPerStep, scope: str) -> int:
    """The budget the controller study's stage gives `ctmc-...-matched` reading a summary that spent `spent`."""
    cfg = SimpleNamespace(
        memory=SimpleNamespace(settings={"name": "ctmc", "budget": "matched", "tau": 1.0}),
        control=SimpleNamespace(matched_from=summary(tmp_path, spent), budget_scope=scope),
    )
    return arm_budget(cfg).tokens


def test_lme_ctmc_budget_is_the_controller_study_matched_budget_on_the_same_spend(tmp_path):
    arms = make_arms(lme())
    rows = [b.row for b in build_prompts(question(), arms, 0, 5, [5], TokenCounter())]
    gm = next(r for r in rows if r["arm"] == "graph_memory")
    assert 0 < gm["memory_tokens"] < gm["prompt_tokens"]
    spent = SpentPerStep(gm["prompt_tokens"], gm["memory_tokens"])
    ctmc = {r["arm"]: r for r in rows if r["arm"].startswith("ctmc")}
    assert len(ctmc) == len(RATIOS)
    # ratio 1 is the matched budget itself: LongMemEval counts the memory block, as `budget_scope: memory` does
    assert ctmc["ctmc-r1"]["budget"] == controller_study_budget(tmp_path, spent, "memory") == gm["memory_tokens"]
    for arm in arms[1:]:
        assert ctmc[arm.name]["budget"] == resolve(arm.memory, reference=spent, ratio=arm.ratio).tokens
        assert ctmc[arm.name]["memory_tokens"] <= ctmc[arm.name]["budget"]
    assert ctmc["ctmc-r0.5"]["budget"] == round(0.5 * gm["memory_tokens"]) < ctmc["ctmc-r1"]["budget"]
    # the whole-prompt scope reads the other column of the same summary
    assert controller_study_budget(tmp_path, spent, "prompt") == gm["prompt_tokens"]


def test_a_matched_arm_without_its_reference_is_a_config_error_naming_what_it_needs():
    arms = make_arms(lme())
    with pytest.raises(ConfigError, match="memory.budget=matched: no reference"):
        build_prompts(question(), arms[1:], 0, 5, [5], TokenCounter())  # CTMC without Graph Memory before it
