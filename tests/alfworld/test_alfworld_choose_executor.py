"""The choose executor (a small model names an offered action by number) and the model slice's ALFWorld keys,
without a model: what is offered, the stable-prefix prompt, usage from an in-process backend's counters, a game
won through it, the roles a model plays (`alfworld.model_roles`) and `max_games` on the smoke list."""

import json

import pytest

from tailmem.errors import ConfigError
from tailmem.studies.alfworld.play import layout
from tailmem.studies.alfworld.play.executor import (
    NOT_OFFERED,
    ChooseExecutor,
    ProgrammaticExecutor,
    ReactExecutor,
    StepInput,
    make_executor,
)
from tailmem.studies.alfworld.play.goal import parse_goal
from tailmem.workflow import compose_config

START = (
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, you see "
    "a bed 1, a desk 1 and a sidetable 1.\n\nYour task is to: put some book on sidetable."
)
ADM = (
    "examine bed 1",
    "go to bed 1",
    "go to desk 1",
    "go to sidetable 1",
    "help",
    "inventory",
    "look",
    "take book 1 from bed 1",
    "move book 1 to bed 1",
    "move book 1 to sidetable 1",
)


class FakeChooser:
    """choose() returns the option named `want` (else the first) and bumps in-process counters like the backend."""

    backend, model = "instruct", "fake-model"

    def __init__(self, want=lambda options: None):
        self.want, self.seen = want, []

        class Impl:
            sent_tokens, evaluated = 0, 0

        self._impl = Impl()

    def choose(self, prompt, options):
        self.seen.append((prompt, list(options)))
        self._impl.sent_tokens += 100
        self._impl.evaluated += 30
        w = self.want(options)
        return options.index(w) if w in options else 0


def step(adm=ADM, memory="", obs=START, n=1):
    return StepInput(parse_goal(START), obs, tuple(adm), memory, "", n)


def test_offered_leaves_out_idle_commands_repeats_here_and_undo():
    ex = ChooseExecutor(FakeChooser())
    assert not set(ex.offered(ADM)) & NOT_OFFERED
    ex.observe("go to bed 1", "You arrive at bed 1. On the bed 1, you see a book 1.")
    ex.observe("examine bed 1", "On the bed 1, you see a book 1.")
    assert "examine bed 1" not in ex.offered(ADM)  # taken since arriving: not again
    ex.observe("take book 1 from bed 1", "You pick up the book 1 from the bed 1.")
    assert ex.holding == "book 1" and "move book 1 to bed 1" not in ex.offered(ADM)  # no undo
    assert "move book 1 to sidetable 1" in ex.offered(ADM)
    ex.observe("go to sidetable 1", "You arrive at sidetable 1. On the sidetable 1, you see nothing.")
    assert ex.location == "sidetable 1" and "examine bed 1" in ex.offered(ADM)  # a new arrival clears the repeats
    assert ex.offered(("look", "help")) == ["look", "help"]  # nothing else left: everything admissible


def test_prompt_puts_the_stable_part_first_and_the_step_last():
    ex = ChooseExecutor(FakeChooser())
    one = ex.prompt(step(memory="bed 1:\n  book 1"))
    ex.observe("go to bed 1", "You arrive at bed 1. On the bed 1, you see a book 1.")
    two = ex.prompt(step(memory="bed 1:\n  book 1", obs="You arrive at bed 1.", n=2))
    shared = next(i for i, (a, b) in enumerate(zip(one, two)) if a != b)
    assert "Task: put some book on sidetable" in one[:shared] and "bed 1:\n  book 1" in one[:shared]
    assert one.index("Memory:") < one.index("You are at") < one.index("Observation:")
    assert "You are at bed 1 and hold nothing. Your last actions: go to bed 1." in two


def test_act_chooses_an_offered_action_and_records_usage_from_the_counters():
    client = FakeChooser(lambda options: "go to bed 1")
    ex = ChooseExecutor(client)
    assert ex.act(step()) == "go to bed 1"
    prompt, options = client.seen[0]
    assert "look" not in options and "go to bed 1" in options and "Which action next?" in prompt
    (u,) = ex.usage
    assert (u.prompt_tokens, u.cached_tokens, u.completion_tokens) == (100, 70, 1)


def test_make_executor_modes():
    assert isinstance(make_executor(None), ProgrammaticExecutor)
    assert isinstance(make_executor(FakeChooser()), ReactExecutor)  # the default mode: today's behaviour
    assert isinstance(make_executor(FakeChooser(), "choose"), ChooseExecutor)
    with pytest.raises(ConfigError, match="alfworld.model_executor"):
        make_executor(FakeChooser(), "guess")


def test_choose_executor_wins_an_easy_game(easy_game):
    from tailmem.memory.controllers import make_controller
    from tailmem.memory.tokens import TokenCounter
    from tailmem.studies.alfworld.play import speedup
    from tailmem.studies.alfworld.play.episode import run_episode

    game, path, _ = easy_game
    plan = json.loads(path.read_text())["walkthrough"]
    played = []

    def want(options):  # the walkthrough's next action, skipped ahead once it has been played
        return next((a for a in plan[len(played) :] if a in options), None)

    speedup.install()
    client = FakeChooser(want)
    ex = ChooseExecutor(client)
    orig = ex.observe
    ex.observe = lambda c, t: (played.append(c), orig(c, t))
    ctl = make_controller({"name": "graph_memory", "budget": None, "rank_by": "query"})
    rec = run_episode(game, path, ex, ctl, TokenCounter(), "", max_steps=len(plan) + 5)
    assert rec.success and rec.invalid == 0 and rec.agent == "fake-model"
    assert rec.prompt_tokens == 100 * rec.steps and "Memory:" in client.seen[-1][0]


# -------------------------------------------------------------------------------------- config of a model slice


def test_model_roles_put_the_programmatic_agents_in_the_other_seats():
    cfg = compose_config("smoke", ["llm=embedded", "alfworld.model_roles=[executor]"])
    labels = layout.agent_labels(cfg)
    assert labels == {
        "executor": "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "builder": "programmatic-builder",
        "searcher": "programmatic-searcher",
    }
    assert layout.model_roles(cfg) == ("executor",)
    everyone = compose_config("smoke", ["llm=embedded"])
    assert set(layout.agent_labels(everyone).values()) == {"qwen2.5-coder-1.5b-instruct-q4_k_m"}  # the default
    offline = compose_config("smoke", ["alfworld.model_roles=[executor]"])
    assert layout.agent_labels(offline) == layout.agent_labels(compose_config("smoke"))  # offline: unchanged
    with pytest.raises(Exception, match="alfworld.model_roles"):
        compose_config("smoke", ["alfworld.model_roles=[judge]"])


def test_plays_model_needs_a_model_and_the_role_listed():
    cfg = compose_config("smoke", ["llm=embedded", "alfworld.model_roles=[executor]"])

    class C:
        def __init__(self, backend):
            self.backend = backend

    assert layout.plays_model(cfg, "executor", C("instruct"))
    assert not layout.plays_model(cfg, "builder", C("instruct"))
    assert not layout.plays_model(cfg, "executor", C("programmatic"))


def test_max_games_cuts_the_smoke_list_too(data_dir):
    from tailmem.studies.alfworld.games import subset_games

    full = subset_games(compose_config("smoke", [f"data_dir={data_dir}"]), "smoke")
    two = subset_games(compose_config("smoke", [f"data_dir={data_dir}", "alfworld.max_games=2"]), "smoke")
    assert len(full) == 6 and two == full[:2]
