"""The ReAct model executor against an OpenAI-compatible server on 127.0.0.1: one call per step, the action parsed
from <action></action>, usage recorded in the episode, a non-admissible action counted invalid. The server's
scripted model plays the game's expert walkthrough (after one invented action), so success is the model's doing."""

import json
import re

import pytest

pytest.importorskip("alfworld")
pytest.importorskip("textworld")

from llm_testkit import FakeServer, llm_cfg  # noqa: E402
from tailmem.llm import get_client  # noqa: E402
from tailmem.memory.controllers import make_controller  # noqa: E402
from tailmem.memory.tokens import TokenCounter  # noqa: E402
from tailmem.studies.alfworld.play import speedup  # noqa: E402
from tailmem.studies.alfworld.play.episode import run_episode  # noqa: E402
from tailmem.studies.alfworld.play.executor import ReactExecutor, make_executor  # noqa: E402


def test_react_executor_plays_through_the_endpoint(easy_game, tmp_path):
    game, path, _ = easy_game
    plan = ["fly to the moon"] + json.loads(path.read_text())["walkthrough"]
    prompts = []

    def model(body):
        prompts.append(body["messages"][-1]["content"])
        action = plan[min(len(prompts), len(plan)) - 1]
        return {"role": "assistant", "content": f"<think>step {len(prompts)}</think>\n<action>{action}</action>"}

    speedup.install()
    with FakeServer(agent=model) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "executor", "alfworld_memory")
        executor = make_executor(client)
        assert isinstance(executor, ReactExecutor)
        ctl = make_controller({"name": "ctmc", "budget": 64, "tau": 1.0, "rank_by": "query"})
        rec = run_episode(game, path, executor, ctl, TokenCounter(), "", max_steps=len(plan) + 5)
    assert rec.loaded and rec.success, rec.trajectory[-3:]
    assert rec.steps == len(plan) == server.requests  # one model call per step
    assert rec.invalid >= 1 and rec.trajectory[0][0] == "fly to the moon"
    assert rec.prompt_tokens > 0 and rec.agent == "test-model"
    assert "Admissible actions:" in prompts[0] and re.search(r"^go to \w+ \d+$", prompts[0], re.M)
    assert "Memory:" in prompts[-1] and "(empty)" not in prompts[-1].split("Memory:")[1].split("Observation:")[0]
