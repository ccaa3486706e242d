"""The policy's probe in model_roles: on a short rollout after a random walk filled the memory, how often the model takes
a path its memory says leads closer to the goal, beside the proxy on the same observations and a uniform pick, and
its replies that named no option. A player that reads only its chat and always takes the nearest remembered path
scores 1; one that avoids those paths scores below a uniform pick, its floor."""

from __future__ import annotations

import dataclasses
import re
from types import SimpleNamespace

import networkx as nx
import pytest

import tailmem.llm.client as client_mod
from llm_testkit import llm_cfg
from tailmem.agents.graphworld import parse_transitions
from tailmem.graphworld.build import world_from_config
from tailmem.llm.budget import Budget
from tailmem.llm.cache import CallCache
from tailmem.llm.group import role_settings, settings
from tailmem.llm.records import ChatResponse, Usage
from tailmem.roles import POLICY
from tailmem.settings.llm import cache_path
from tailmem.settings.rollout import RetrievalGroup
from tailmem.studies.model_roles.probe import _reference, _row, policy_figures

STEPS = 16


@pytest.fixture(scope="module")
def world():
    return world_from_config(dict(family="modular", n=60, communities=4, k_in=4.0, k_out=0.5), seed=0)


def read_chat(world, messages):
    """(goal, where the agent is, the options, what the chat says each (state, action name) leads to), read from
    the chat's text alone: memory lines, and each move the chat made (a turn, its reply, the next "You are at")."""
    ids = {t: i for i, t in enumerate(world.state_texts)}
    goal = here = None
    options: list[str] = []
    leads: dict[tuple[int, str], int] = {}
    move = None
    for m in messages:
        if m["role"] == "assistant":
            move = (here, options[int(m["content"]) - 1])
        if m["role"] != "user":
            continue
        for line in m["content"].split("\n"):
            if line.startswith(("Goal: ", "You reached the goal. New goal: ")):
                goal = ids[line.split(": ", 1)[1]]
            elif line.startswith("From: "):
                t = parse_transitions([line])[0]
                leads[(ids[t.state], t.action)] = ids[t.next_state]
            elif line.startswith("You are at: "):
                here = ids[line.removeprefix("You are at: ")]
                if move is not None:
                    leads[move] = here
                move = None
        options = re.findall(r"^\d+\. (.*)$", m["content"], re.M)
    return goal, here, options, leads


class Reader:
    """An embedded-model stand-in that reads its chat: `toward` takes the remembered option nearest the goal where
    one leads closer (else explores), otherwise it avoids every remembered option that leads closer."""

    name = "instruct"

    def __init__(self, world, toward: bool):
        self.world, self.toward, self.graph = world, toward, world.to_networkx()

    def endpoint_id(self, model):
        return f"fake:{model}"

    def chat(self, model, messages, tools, params, on_send=None):
        goal, here, options, leads = read_chat(self.world, messages)
        d = nx.single_source_shortest_path_length(self.graph, goal)
        known = {i: leads[(here, o)] for i, o in enumerate(options) if (here, o) in leads}
        closer = {i for i, nxt in known.items() if d[nxt] < d[here]}
        unknown = [i for i in range(len(options)) if i not in known]
        if self.toward:  # the nearest remembered path when one leads closer, else a path not yet taken
            pick = min(closer, key=lambda i: d[known[i]]) if closer else (unknown or [0])[0]
        else:
            pick = next((i for i in range(len(options)) if i not in closer), 0)
        return ChatResponse(str(pick + 1), (), Usage(1, 0, 1), model, False, 0.0)


def client(tmp_path, impl):
    llm = settings(llm_cfg(tmp_path, "http://127.0.0.1:9/v1"))
    s = dataclasses.replace(role_settings(llm, POLICY), backend=impl.name)
    return client_mod.LLMClient(s, "model_roles", llm, CallCache(cache_path(llm)), Budget(None, None), impl)


def figures(world, tmp_path, toward: bool) -> dict:
    return policy_figures(world, RetrievalGroup(name="recency", k=5), 0, client(tmp_path, Reader(world, toward)), STEPS)


def test_a_player_that_takes_the_nearest_remembered_path_scores_one(world, tmp_path):
    got = figures(world, tmp_path, toward=True)
    assert STEPS // 2 <= got["calls"] < STEPS and got["malformed"] == 0  # exploring or one-option steps ask nothing
    assert got["steps"] >= 4  # the warm-up left paths in memory
    assert got["model"] == 1.0 and 0 < got["uniform"] < 1
    assert 0 <= got["proxy"] <= 1


def test_a_player_that_avoids_those_paths_is_below_a_uniform_pick(world, tmp_path):
    got = figures(world, tmp_path, toward=False)
    assert got["model"] < got["uniform"]
    row = _row("policy", "took a path", got["model"], got["steps"], got["uniform"])
    assert row["verdict"] == "below floor"
    assert _reference("policy", "proxy", got["proxy"], got["steps"])["verdict"] == "reference"


def test_without_a_model_the_policy_rows_say_no_items(tmp_path):
    from tailmem.studies.model_roles.probe import policy_probe

    roles = {"policy": {"backend": "programmatic", "agent": "programmatic-semantic"}}
    rows = policy_probe(llm_cfg(tmp_path, "http://127.0.0.1:9/v1", roles=roles), STEPS, SimpleNamespace(unreadable=0.1))
    assert [r["role"] for r in rows] == ["policy"] * 4 and {r["verdict"] for r in rows} == {"no items"}
