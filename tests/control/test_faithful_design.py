"""The controller study's design, faithful to paper 1 so that its arms can differ (each test a finding reproduced
from outside on the earlier design): the budget counts the whole prompt and binds, a summary keeps its exits, the
note never evicts the current item, the tail is ranked over the replayed window, the retrieval design feeds the
candidate pool, the design check sees CTMC and Graph Memory differ, and every scale's own config gives its
controller claims at least stats.min_units runs."""

import numpy as np
import pandas as pd
import pytest
from test_control import walk

from tailmem.control import arms, design
from tailmem.control.predict import ProgrammaticPredictor, full_prompt, known_exits
from tailmem.control.replay import replay, tail_states, window_counts
from tailmem.control.world_memory import WorldMemory
from tailmem.fsmem.questions import asked
from tailmem.graphworld.build import build_world
from tailmem.memory import ctmc
from tailmem.memory.budget import MemoryBudget
from tailmem.memory.controllers import make_controller
from tailmem.memory.items import MemoryItem
from tailmem.memory.tokens import TokenCounter
from tailmem.studies.alfworld import design_rows as alfworld_rows
from tailmem.studies.fsmem import design_rows as fsmem_rows
from tailmem.studies.longmemeval import design_rows as longmemeval_rows
from tailmem.studies.random_walk import design_rows as policy_rows


def stated_rows(cfg, min_units: int, alpha: float, questions: int | None = None) -> dict[str, dict]:
    """Each model-played study's design-check row but the controller's (its `design_rows.row`), by the row's
    words up to the colon."""
    rows = [
        fsmem_rows.row(cfg, min_units, alpha, questions),
        longmemeval_rows.row(cfg, min_units, alpha),
        alfworld_rows.row(cfg, min_units, alpha),
        policy_rows.row(cfg, min_units, alpha),
    ]
    return {r["claim"].split(":")[0]: r for r in rows}


@pytest.fixture(scope="module")
def world():
    return build_world("modular", 120, {"communities": 4, "k_in": 4.0, "k_out": 0.5}, 0)


@pytest.fixture(scope="module")
def trajectory(world):
    return walk(world, steps=400)


def tokens():
    return TokenCounter()  # the real tokenizer: budgets of whole prompts are in its tokens


def test_the_whole_prompt_budget_binds_and_caps_every_prompt(world, trajectory):
    """Finding: a 160-token cap on the memory block alone never bound on tail steps. Counted over the whole prompt
    (~156 tokens), Graph Memory must leave candidates out, and no prompt exceeds the budget."""
    states, edges = trajectory
    gm = make_controller({"name": "graph_memory", "budget": 156})
    free = make_controller({"name": "graph_memory", "budget": None})
    capped = replay(
        world, states, edges, gm, ProgrammaticPredictor(), tokens(), budget=MemoryBudget(156, whole_prompt=True)
    )
    unbounded = replay(world, states, edges, free, ProgrammaticPredictor(), tokens())
    assert capped.steps.prompt_tokens.max() <= 156 + 2  # the line-sum count may differ by a token or two
    assert (capped.steps.n_core < unbounded.steps.n_core).mean() > 0.1  # the cap binds on many steps
    fixed = tokens()(full_prompt("", 0, world.state_texts[0], world.action_names[world.edge(0, 0)]))
    assert 60 < fixed < 156  # instruction and question leave the memory block well under the whole budget


def test_a_summary_keeps_its_known_exits(world):
    """Finding: a summary was a name and a region (`S254 round gallery/jade (0/4 exits known)`), so the summarised
    tail kept nothing a prediction could use. It now names each known exit with its region."""
    mem = WorldMemory(world)
    a, b = world.step(0, 0), world.step(0, 1)
    mem.learn(0, 0, 0, a)
    mem.learn(1, 0, 1, b)
    summary = mem.store.items[0].summary
    assert f"S{a}/" in summary and f"S{b}/" in summary and "2/" in summary
    assert known_exits(summary, 0) == {a, b}


def test_the_note_never_evicts_the_current_item():
    """Finding: at a budget of 20, 98% of CTMC blocks were only the "(+N related items not shown)" note: making
    room for it evicted the current item, the step's evidence."""
    count = TokenCounter(count=lambda text: len(text.split()))
    current = MemoryItem(0, ("State 0", "a b"), ("S0 x/y", "  w>y>S1"), "S0 x/y (1/2 exits known: S1/y)")
    other = MemoryItem(1, ("State 1", "c d"), ("S1 p/q", "  v>q>S2"), "S1 p/q (0/3 exits known)")
    for budget in (8,):  # its share buys its header and fact (5 tokens); the note (6) does not fit beside them
        p = ctmc.allocate([current, other], budget, 1.0, "compact", count)
        # the room left (3) takes the other item's header line, which names it: no note is needed
        assert p.core == (0,) and p.text == "S0 x/y\n  w>y>S1\nS1 p/q", (budget, p.text)
        assert p.tokens <= budget


def test_the_tail_is_ranked_over_the_replayed_window():
    """Finding: the shared tail was ranked by accesses over the whole 8,000-step trace while only the first 500
    steps are replayed. Accesses after the window must not rank it."""
    access_step = np.array([0, 0, 1, 2, 5, 5, 6])
    access_item = np.array([0, 1, 0, 2, 3, 3, 3])
    assert window_counts(access_step, access_item, 4, 3).tolist() == [2, 1, 1, 0]
    assert window_counts(access_step, access_item, 4, None).tolist() == [2, 1, 1, 3]
    steps = pd.DataFrame({"state": [0, 1, 2, 3]})
    assert set(tail_states(steps, window_counts(access_step, access_item, 4, 3), 0.5)) == {3, 1}
    assert set(tail_states(steps, window_counts(access_step, access_item, 4, None), 0.5)) == {1, 2}


def test_the_retrieval_design_feeds_the_candidate_pool(world, trajectory):
    """Finding: candidates were the current state's graph neighbourhood alone, though the retrieval design defines
    the access counts and so the tail. A retrieved state that is no known neighbour must become a candidate."""
    states, edges = trajectory
    n = 60
    states, edges = states[:n], edges[:n]
    far = int(states[0])  # visited at step 0, so stored; choose a step whose state is not its neighbour
    t = next(t for t in range(5, n) if int(states[t]) != far and far not in world.neighbors(int(states[t])))
    retrieved = [np.zeros(0, int)] * n
    retrieved[t] = np.array([far])
    gm = make_controller({"name": "graph_memory", "budget": None})
    plain = replay(world, states, edges, gm, ProgrammaticPredictor(), tokens(), predict_at=[t])
    fed = replay(world, states, edges, gm, ProgrammaticPredictor(), tokens(), predict_at=[t], retrieved=retrieved)
    assert fed.steps.n_core.iloc[0] == plain.steps.n_core.iloc[0] + 1


def _steps(world, states, edges, arm_settings, budget_of_matched=None):
    out = {}
    for arm, settings in arm_settings.items():
        c = make_controller(settings)
        out[arm] = replay(
            world, states, edges, c, ProgrammaticPredictor(), tokens(), budget=MemoryBudget(c.budget, whole_prompt=True)
        ).steps
    return out


def test_ctmc_and_graph_memory_differ_in_evidence_or_mention_on_the_tail(world, trajectory):
    """Finding: CTMC and Graph Memory differed on 0 of 6,000 steps' predictions and on 0 tail steps' evidence or
    mention of the answer. Under the faithful design the design check must find tail steps where they do."""
    states, edges = trajectory
    gm, ct = "graph_memory-compact", "ctmc-compact-tau1-rank"
    steps = _steps(
        world,
        states,
        edges,
        {gm: {"name": "graph_memory", "budget": 156}, ct: {"name": "ctmc", "budget": 156, "tau": 1.0}},
    )
    counts = np.bincount(states, minlength=world.n)
    tail = steps[gm].state.isin(tail_states(steps[gm], counts)).to_numpy()
    row = design.pair_counts(steps, tail, design.ClaimPair("t5", ct, gm, "tail"))
    assert row["evidence"] + row["mention"] > 0
    assert row["identical"] < row["steps"]


def test_a_plan_draws_each_pair_by_stratum_and_weights_them_without_bias():
    """Each pair's draws weigh up to the steps of their stratum (so the pair's difference is unbiased), decisive
    steps (evidence or mention differs) before format-only ones, identical prompts never; the shared sample
    weighs 1/sample."""
    n = 200
    rng = np.random.default_rng(1)
    base = pd.DataFrame(
        {
            "step": range(n),
            "prompt_sha": rng.integers(0, 3, n).astype(str),
            "covered": False,
            "mentions_next": True,
        }
    )
    steps = {arm: base for arm in design.claim_arms()}
    pair = design.claim_pairs()[0]  # Table 5 (tail)
    step = np.arange(n)
    steps[pair.a] = base.assign(
        prompt_sha=np.where(step % 4 == 0, "x", base.prompt_sha),  # differs at every 4th step
        covered=step % 8 == 0,  # of which half differ in evidence
    )
    tail = step < 100
    planned = design.plan(steps, tail, 10, 0.5, seed=0)
    assert planned.informative == 50
    mine = next(p for p in planned.pairs if (p.a, p.b) == (pair.a, pair.b))
    by_stratum = {}
    for t, w, k in zip(mine.steps, mine.weights, mine.strata):
        by_stratum.setdefault(k, []).append((t, w))
        assert t < 100 and t % 4 == 0  # tail steps whose prompts differ, nothing else
        assert (k == "tail/decisive") == (t % 8 == 0)
    for k, size in (("tail/decisive", 13), ("tail/format", 12)):
        assert sum(w for _, w in by_stratum[k]) == pytest.approx(size)
    assert len(by_stratum["tail/decisive"]) > len(by_stratum["tail/format"])  # Neyman: decisive spread larger
    assert all(w == 2.0 for w in planned.weights)
    others = [p for p in planned.pairs if (p.a, p.b) != (pair.a, pair.b)]
    assert all(not p.steps for p in others)  # their arms' prompts are identical: no call


def test_a_blind_step_needs_no_call_only_for_a_predictor_that_names_what_its_block_names():
    """Where neither block names the true next state, a predictor restricted to the block's states is wrong in
    both arms (difference exactly 0); one that may answer any state still needs the call."""
    n = 40
    base = pd.DataFrame(
        {"step": range(n), "prompt_sha": "s", "covered": False, "mentions_next": False, "correct": False}
    )
    steps = {arm: base for arm in design.claim_arms()}
    pair = design.claim_pairs()[0]
    steps[pair.a] = base.assign(prompt_sha="other")  # differs everywhere, names the next state nowhere
    tail = np.ones(n, bool)
    assert design.plan(steps, tail, 10, 0.5, seed=0, blind_exact=True).informative == 0
    assert design.plan(steps, tail, 10, 0.5, seed=0, blind_exact=False).informative == n
    assert design.pair_counts(steps, tail, pair, blind_exact=True)["blind"] == n


def test_an_arm_is_called_at_the_shared_sample_and_its_pairs_draws():
    from tailmem.records.control import DesignPlan

    plan = DesignPlan(
        family="f",
        seed=0,
        arms=["a", "b", "c"],
        replayed_steps=10,
        informative_steps=3,
        sample=0.5,
        steps=[1, 5],
        weights=[2.0, 2.0],
        pairs=[{"a": "a", "b": "b", "steps": [5, 7], "weights": [3.0, 3.0], "strata": ["tail/decisive"] * 2}],
        blind_exact=True,
    )
    assert plan.arm_calls("a") == {1: 2.0, 5: 2.0, 7: 0.0}
    assert plan.arm_calls("c") == {1: 2.0, 5: 2.0}


def test_feasibility_names_what_cannot_decide():
    assert design.feasibility(12, 12, 300, 6, 0.025) == "decidable"
    assert design.feasibility(12, 12, 0, 6, 0.025).startswith("undecidable by design: 0 informative steps")
    assert "runs planned" in design.feasibility(5, 5, 40, 6, 0.025)
    assert "runs with an informative step" in design.feasibility(12, 3, 40, 6, 0.025)


def test_feasibility_names_every_reason_at_once():
    """Finding: with 0 informative steps and 1 run planned the check named only the first reason, so a slice
    resized for its units would still have been undecidable."""
    both = design.feasibility(1, 0, 0, 6, 0.025)
    assert both == "undecidable by design: 0 informative steps; 1 runs planned, stats.min_units 6"


@pytest.mark.parametrize("scale", ["default", "default_model", "paper", "paper_model"])
def test_each_scale_s_own_config_gives_its_controller_claims_enough_runs(scale):
    """Finding: `paper_model` ran its controller study on one family x 5 seeds and `default_model` on one run, below
    stats.min_units by their own configuration, so every claims_ctmc row was INCONCLUSIVE at any cost."""
    from tailmem.workflow import compose_config

    cfg = compose_config(scale)
    c = cfg.scale.control
    assert len(c.families) * len(c.seeds) >= int(cfg.stats.min_units)
    if c.policy == "llm" or scale.endswith("_model"):
        assert cfg.control.plan or cfg.control.predict_steps is None  # a model slice predicts where it can decide


def test_the_design_check_says_which_other_studies_cannot_decide_by_their_config():
    """A claim that no model can decide under its plan says so before any call: the default slice planned 2
    ALFWorld games, below stats.min_units, and now plays none (its LoCoMo and 6 LongMemEval questions are
    enough); the smoke slice's LLM policy walks one world."""
    from tailmem.workflow import compose_config

    rows = stated_rows(compose_config("default_model"), 6, 0.025)
    assert rows["ALFWorld"]["plan"].startswith("not run at this scale (alfworld.subsets is empty)")
    two = compose_config("default_model", ["alfworld.subsets=[valid_seen]", "alfworld.max_games=2"])
    two = stated_rows(two, 6, 0.025)
    assert two["ALFWorld"]["plan"] == "undecidable by design: 2 games planned, stats.min_units 6"
    enough = "decidable if at least 6 questions part the arms"  # 2^-6 <= 0.025
    assert rows["fsmem"]["plan"].startswith(enough) and rows["LongMemEval"]["plan"].startswith(enough)
    # and each says its power at its stated effect (power.stated_effects): 40 questions (the cap), 6 questions
    assert rows["fsmem"]["planned_power"] > 0.5 > rows["LongMemEval"]["planned_power"]
    assert "80% at 33 questions" in rows["fsmem"]["plan"]
    smoke = stated_rows(compose_config("smoke_model"), 6, 0.025)
    # finding: the smoke slice's ALFWorld row read "decidable" (no max_games) though it plays one listed game
    assert smoke["ALFWorld"]["plan"] == "undecidable by design: 1 games planned, stats.min_units 6"
    assert smoke["LLM policy vs random walk"]["plan"] == "undecidable by design: 1 runs planned, stats.min_units 6"


class GrammarClient:
    """A client whose backend decodes under given answers: it records them and answers the first one."""

    backend, model, constrains_answers = "instruct", "fake-model", True

    def __init__(self):
        self.choices: list[list[str]] = []

    def chat(self, messages, **params):
        from tailmem.llm.records import ChatResponse, Usage

        self.choices.append(params["answer_choices"])
        return ChatResponse(params["answer_choices"][0], (), Usage(10, 0, 2), self.model, False, 0.0)


def test_the_model_predictor_answers_under_a_grammar_of_the_named_codes_but_the_current_state():
    """Finding: the predictor missed its floor (accuracy 0.769 when the prompt holds the transition; 0.5 on the
    first grammar-decoded default slice, which let it name the current state). It now decodes under a grammar of
    the other states the block names, or UNKNOWN; the grammar is one llama.cpp accepts."""
    from tailmem.control.predict import ModelPredictor
    from tailmem.llm.backends.instruct import choices_grammar

    client = GrammarClient()
    block = "S7 gallery/jade\n  copper stair>orchard>S12\nS40 hall/orchard (1/3 exits known: S7/jade)"
    pred = ModelPredictor(client).predict(block, 7, "The gallery of the jade district.", "take the path")
    assert client.choices == [["S12", "S40", "UNKNOWN"]] and pred.state == 12
    grammar = choices_grammar(client.choices[0])
    assert grammar == 'root ::= "UNKNOWN" | "S12" | "S40"'
    llama_grammar = pytest.importorskip("llama_cpp").LlamaGrammar
    assert llama_grammar.from_string(grammar, verbose=False) is not None


def test_a_planned_pair_difference_is_unbiased_and_knows_blind_steps():
    """Simulated model answers on every step of 8 runs; the planned estimate (pair draws weighted by stratum size /
    drawn, identical and blind steps known as 0) averages to the difference over every step, across plan seeds."""
    from tailmem.records.control import DesignPlan
    from tailmem.stats.group import shipped
    from tailmem.studies.controller import tables as ct

    pair = design.claim_pairs()[0]
    n, rng = 120, np.random.default_rng(3)
    frames, truth = {}, []
    for run in range(8):
        mention_a, mention_b = rng.random(n) < 0.4, rng.random(n) < 0.3
        cov_a, cov_b = mention_a & (rng.random(n) < 0.5), mention_b & (rng.random(n) < 0.5)
        right_a = np.where(cov_a, rng.random(n) < 0.8, mention_a & (rng.random(n) < 0.2))
        right_b = np.where(cov_b, rng.random(n) < 0.8, mention_b & (rng.random(n) < 0.2))
        sha_b = rng.integers(0, 5, n).astype(str)
        sha_a = np.where(rng.random(n) < 0.1, sha_b, "a" + sha_b)
        frames[run] = (mention_a, mention_b, cov_a, cov_b, right_a, right_b, sha_a, sha_b)
        truth.append(np.mean(right_b.astype(float) - right_a.astype(float)))  # error a - error b
    estimates = []
    for plan_seed in range(60):
        rows, plans = [], []
        for run, (ma, mb, ca, cb, ra, rb, sa, sb) in frames.items():
            base = pd.DataFrame({"step": range(n), "state": range(n), "correct": False})
            steps = {arm: base.assign(prompt_sha=sb, covered=cb, mentions_next=mb) for arm in design.claim_arms()}
            steps[pair.a] = base.assign(prompt_sha=sa, covered=ca, mentions_next=ma)
            planned = design.plan(steps, np.ones(n, bool), 10, 0.05, seed=plan_seed * 100 + run)
            plan = DesignPlan(
                "f",
                run,
                design.claim_arms(),
                n,
                planned.informative,
                0.05,
                planned.steps,
                planned.weights,
                [vars(p) for p in planned.pairs],
                True,
            )
            plans.append(plan)
            for arm, right in ((pair.a, ra), (pair.b, rb)):
                calls = plan.arm_calls(arm)
                called = np.isin(np.arange(n), list(calls))
                rows.append(
                    steps[arm].assign(
                        correct=np.where(called, right, np.nan),
                        called=called,
                        weight=0.0,
                        arm=arm,
                        family="f",
                        seed=run,
                        in_tail=True,
                        prompt_tokens=1,
                    )
                )
        row = ct.compare_arms(
            pd.concat(rows, ignore_index=True),
            pair.a,
            pair.b,
            "tail_error",
            "less",
            0.0,
            shipped(resamples=200, seed=0),
            ct.pair_weight_frame(plans),
        )
        estimates.append(row["estimate"])
    se = np.std(estimates) / np.sqrt(len(estimates))
    assert abs(np.mean(estimates) - np.mean(truth)) < 4 * se + 1e-9
    assert np.std(estimates) > 0  # the draws do vary: the test could fail


def test_the_tail_rows_policy_is_apart_from_the_controller_trajectories():
    """Finding: `scale.control.policy` set both the controller study's trajectories and the policy of Table 3's
    tail rows, so a slice that replays the semantic proxy for the predictor's claims ran no model policy at all."""
    from tailmem import graph_runs as targets
    from tailmem.workflow import compose_config

    paper = compose_config("paper_model")
    assert {r.policy for r in targets.design_runs(paper)} == {"semantic"}
    assert {r.policy for r in targets.policy_runs(paper)} == {"llm"}
    assert len(targets.policy_runs(paper)) >= 6  # stats.min_units: the tail-shape rows can be decided
    assert targets.contrast_policies(paper) == ["random_walk", "llm"]
    default = compose_config("default_model")  # the model plays 50 steps on 8 worlds: too short for a tail fit
    assert targets.contrast_policies(default) == ["random_walk", "llm"] and len(targets.policy_runs(default)) == 8
    assert {(r.n, r.seed) for r in targets.policy_runs(default)} == {(150, s) for s in (0, 1, 2, 3)}  # its own
    assert {r.n for r in targets.design_runs(default)} == {500}  # the predictor's trajectories stay the study's
    tails, gini, share, sigma = policy_rows.rows(default, 6, 0.025)
    assert tails["plan"].startswith("undecidable by design: 50 policy steps") and tails["planned_power"] == 0
    # planned at the p each is read at (tests/report/test_concentration_level.py): 68%, 74% and 45% here
    assert gini["planned_units"] == 8 and gini["planned_power"] >= 0.6 and share["planned_power"] >= 0.6
    assert gini["planned_calls"] == share["planned_calls"] == sigma["planned_calls"] == 8 * 50  # the same runs
    assert 0 < sigma["planned_power"] < gini["planned_power"]


def test_a_claims_only_scale_runs_every_claim_pair_s_arms_and_nothing_else():
    """Finding (default_model's measured run): the slice ran all 15 controller arms per run, 7 of them read by no
    claim (Table 4's other baselines, tau 2), each a model job that loads the model for one sampled call: 56 of
    its 120 model_control jobs. `scale.control.arms: claims` runs the claims' arms and the tau sweep's only."""
    from tailmem import graph_runs as targets
    from tailmem.workflow import compose_config

    cfg = compose_config("default_model")
    assert cfg.scale.control.arms == "claims"
    ran = set(targets.control_arms(cfg))
    assert {x for p in design.claim_pairs() for x in (p.a, p.b)} <= ran
    assert ran == set(design.claim_arms()) | set(arms.tau_arms(cfg.scale.control.taus))
    assert "full_history-compact" not in ran
    assert "full_history-compact" in targets.control_arms(compose_config("default"))


def test_the_smoke_slice_plays_the_predictor_on_the_first_claim_pair_only():
    """Issue 51 (the suite in ten minutes): the smoke slice tests the predictor's path, which one claim pair holds
    as well as eight arms did (8 model_control jobs, 39 s inside llama.cpp on a quiet machine).
    `scale.control.arms: first_claim` runs that pair's two arms and the tau sweep's (Figure 6), after the Graph
    Memory arm whose tokens the matched one spends; the scale check knows the name."""
    from tailmem import graph_runs as targets
    from tailmem.errors import ConfigError
    from tailmem.workflow import compose_config

    first = design.claim_pairs()[0]
    assert first.label.startswith("Table 5 (verbose)")
    cfg = compose_config("smoke_model")
    ran = targets.control_arms(cfg)
    assert ran == [arms.baseline("graph_memory"), first.b, first.a, *arms.tau_arms(cfg.scale.control.taus)]
    assert len(ran) == 4 < len(targets.control_arms(compose_config("smoke_model", ["scale.control.arms=claims"])))
    with pytest.raises(ConfigError, match="scale.control"):
        compose_config("smoke_model", ["scale.control.arms=first_pair"])


def test_the_design_check_counts_the_locomo_questions_the_slice_can_ask():
    """Finding (default_model's measured run): the design check planned 12 LoCoMo questions from
    `fsmem.max_questions`, but the store keeps 3 sessions, which hold the evidence of 8 stratified questions of
    conv-50; 8 were asked, and the F1 row's smallest attainable p was then out of reach."""
    from tailmem.workflow import compose_config

    cfg = compose_config("default_model", ["fsmem.max_sessions=3", "fsmem.max_questions=12"])
    questions = asked(cfg.fsmem)
    assert questions == 8 < cfg.fsmem.max_questions
    rows = stated_rows(cfg, 6, 0.025, questions)
    assert rows["fsmem"]["runs"] == 8
    # the slice now keeps 9 sessions: 35 of its 40 questions have their evidence in the store, 2 more than the
    # stated effect needs for 80% power
    default = compose_config("default_model")
    assert asked(default.fsmem) == 35
    assert stated_rows(default, 6, 0.025, 35)["fsmem"]["planned_power"] >= 0.8


def test_a_pair_scoring_every_step_draws_as_many_other_steps_as_tail_steps():
    """Finding (default_model's measured run): with half as many draws from the steps outside the tail, the
    overall-error pairs' intervals were set by 2 draws a run from ~390 steps, and Table 6's overall ordering
    stayed INCONCLUSIVE where the twin decides it. A pair that a claim scores over every step draws as many
    other steps as tail steps; a tail-only pair draws none outside the tail."""
    n = 400
    base = pd.DataFrame({"step": range(n), "prompt_sha": "same", "covered": False, "mentions_next": True})
    steps = {arm: base for arm in design.claim_arms()}
    overall = next(p for p in design.claim_pairs() if p.scope == "all")
    steps[overall.a] = base.assign(prompt_sha="differs", covered=np.arange(n) % 2 == 0)
    tail = np.arange(n) < 100
    mine = next(p for p in design.plan(steps, tail, 6, 0.5, seed=0).pairs if (p.a, p.b) == (overall.a, overall.b))
    drawn_tail = sum(k.startswith("tail/") for k in mine.strata)
    drawn_other = sum(k.startswith("other/") for k in mine.strata)
    assert drawn_tail == drawn_other == 6


def test_the_fsmem_row_prices_the_judge_only_where_the_slice_judges():
    """Finding (this plan against the default slice's measured calls): the fsmem row priced 4 judge calls a
    question (power.stated_effects.fsmem) though the slice runs with `fsmem.judge: false`, so its core-seconds were
    twice what its calls cost."""
    from tailmem.workflow import compose_config

    judged = stated_rows(compose_config("default_model", ["fsmem.judge=true"]), 6, 0.025, 30)["fsmem"]
    unjudged = stated_rows(compose_config("default_model", ["fsmem.judge=false"]), 6, 0.025, 30)["fsmem"]
    cfg = compose_config("default_model")
    searcher = cfg.power.stated_effects.fsmem.calls_per_unit.searcher
    assert unjudged["calls_per_unit"] == searcher < judged["calls_per_unit"]
    assert unjudged["core_seconds"] == pytest.approx(30 * searcher * cfg.power.call_seconds.searcher)
    assert unjudged["planned_power"] == judged["planned_power"]  # what the calls buy is the F1 row either way
