"""A prompt that outgrows the model's context window loses its game, counted, and the environment is closed: the
other games of the run still play."""

import pytest

pytest.importorskip("alfworld")
pytest.importorskip("textworld")

from tailmem.llm.backends.base import ContextOverflow  # noqa: E402
from tailmem.memory.controllers import make_controller  # noqa: E402
from tailmem.memory.tokens import TokenCounter  # noqa: E402
from tailmem.studies.alfworld.play.episode import run_episode  # noqa: E402
from tailmem.studies.alfworld.play.executor import ProgrammaticExecutor  # noqa: E402


class Overflowing(ProgrammaticExecutor):
    def act(self, x):
        if x.step == 3:
            raise ContextOverflow("role executor: the prompt is 9000 tokens")
        return super().act(x)


def test_the_game_is_lost_and_counted(easy_game):
    game, path, _ = easy_game
    ctl = make_controller({"name": "ctmc", "budget": 64, "tau": 1.0, "rank_by": "query"})
    rec = run_episode(game, path, Overflowing(), ctl, TokenCounter(), "", max_steps=20)
    assert rec.loaded and not rec.success and rec.context_overflow and rec.steps == 3
