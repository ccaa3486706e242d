"""The LLM policy's episode chat: each step appends one user turn (memory lines not yet in the chat, where the agent
is, the numbered options) after the model's previous reply, so a model that keeps the KV of the shared prefix
evaluates only that turn; the chat is bounded; every request is keyed by the whole chat, so a killed rollout
replays from the call cache; every chat backend receives the same messages, and a scoring-only model the one-turn
prompt."""

import dataclasses
import hashlib
import json
import re

import numpy as np
import pytest

import tailmem.llm.client as client_mod
from llm_testkit import llm_cfg
from tailmem.agents.graphworld import format_transition
from tailmem.graphworld.build import world_from_config
from tailmem.llm.backends.instruct import choose_messages
from tailmem.llm.budget import Budget
from tailmem.llm.cache import CallCache
from tailmem.llm.group import role_settings, settings
from tailmem.llm.records import ChatResponse, Usage
from tailmem.llm.tokens import count_message_tokens
from tailmem.roles import POLICY
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import GoalDirected, LLMPolicy
from tailmem.settings.llm import cache_path
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup

LENGTH = RolloutGroup(episodes=3, steps=20, start="uniform")
RETRIEVAL = RetrievalGroup(name="recency", k=5)
_OPTION = re.compile(r"^(\d+)\. ", re.M)


class Killed(Exception):
    """The process dies in the middle of a rollout."""


class Recorder:
    """A backend of kind `name` that answers at once, recording every request. Its answer is a function of the
    request (a hash), as a greedy model's is, so a rerun that asks the same gets the same; `chatty` replies prose
    before the number (a model decoded under no grammar); `die_at` kills the process at that call."""

    def __init__(self, name: str = "instruct", die_at: int | None = None, chatty: bool = False):
        self.name, self.die_at, self.chatty = name, die_at, chatty
        self.requests: list[tuple[str, list[dict], dict]] = []

    def endpoint_id(self, model: str) -> str:
        return f"fake:{model}"

    def _pick(self, what, n: int) -> int:
        if self.die_at is not None and len(self.requests) == self.die_at:
            raise Killed
        digest = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).digest()
        return int.from_bytes(digest[:8], "big") % n

    def chat(self, model, messages, tools, params, on_send=None):
        n = len(_OPTION.findall(messages[-1]["content"])) or int(re.findall(r"\d+", messages[-1]["content"])[-1])
        k = self._pick(messages, n)
        self.requests.append(("chat", json.loads(json.dumps(messages)), dict(params)))
        reply = f"I would take option {k + 1}" if self.chatty and len(messages) % 3 else str(k + 1)
        if self.chatty and len(self.requests) % 5 == 0:
            reply = "The bridge looks promising."  # names no option: re-asked
        return ChatResponse(reply, (), Usage(count_message_tokens(messages), 0, 1), model, False, 0.0)

    def choose(self, prompt, options):
        k = self._pick([prompt, options], len(options))
        self.requests.append(("choose", choose_messages(prompt, options), {}))
        return k, Usage(10, 0, 1), 0.0


def make_client(tmp_path, impl, recorded: str = "openai"):
    llm = settings(llm_cfg(tmp_path, "http://127.0.0.1:9/v1"))
    base = role_settings(llm, POLICY)
    s = dataclasses.replace(base, backend=impl if isinstance(impl, str) else impl.name, recorded_backend=recorded)
    cache = CallCache(cache_path(llm))
    if isinstance(impl, str):  # a replay: answers from the recording in this cache, sends nothing
        impl = client_mod._stand_in(s, "rollout", cache)
    return client_mod.LLMClient(s, "rollout", llm, cache, Budget(None, None), impl)


@pytest.fixture(scope="module")
def world():
    return world_from_config(dict(family="modular", n=60, communities=4, k_in=3.0, k_out=0.5), seed=0)


class Seeing(LLMPolicy):
    """Keeps, for each step the model is asked at, its observation, the proxy's memory lines
    (GoalDirected.memory_texts), the goal, the one-turn prompt of the same observation and the actions offered
    (the tabu rule's; an exploring step or one left action asks nothing and the chat does not see it)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.seen, self.one_turn_prompts, self.offered, self.asked_steps = [], [], [], []

    def choose(self, obs, u):
        calls = self.calls
        seen = (obs, GoalDirected.memory_texts(self, obs), self.goal(obs.episode))
        prompt = self.prompt(obs)  # today's one-turn layout of the same observation
        chosen = super().choose(obs, u)
        if self.calls > calls:
            self.seen.append(seen)
            self.one_turn_prompts.append(prompt)
            self.offered.append(self.allowed(obs))
            self.asked_steps.append(obs.t)
        return chosen


def asked(policy) -> int:
    """How many steps the model must have been asked at: every step but the exploring ones and those with one
    action left."""
    return LENGTH.total_steps - policy.explored_steps - policy.one_path


def play(world, client, **kw):
    policy = Seeing(world, 0, client, **kw)
    trace = rollout(world, LENGTH, RETRIEVAL, 0, policy=policy)
    return policy, trace


@pytest.fixture(scope="module")
def chat_run(world, tmp_path_factory):
    backend = Recorder("instruct")
    client = make_client(tmp_path_factory.mktemp("chat"), backend)
    policy, trace = play(world, client)
    return backend, policy, trace


def _user_text(messages) -> str:
    return "\n".join(m["content"] for m in messages if m["role"] == "user")


def test_each_step_appends_one_user_turn_after_the_previous_reply(world, chat_run):
    backend, policy, trace = chat_run
    offsets = np.concatenate([[0], np.cumsum([len(world.actions(s)) for s in range(world.n)])])
    calls, steps = backend.requests, policy.asked_steps
    assert len(calls) == len(steps) == asked(policy) > 50 and {kind for kind, _, _ in calls} == {"chat"}
    starts = 0
    for k, (_, messages, _) in enumerate(calls):
        assert messages[0] == {"role": "system", "content": LLMPolicy.SYSTEM}
        assert messages[-1]["role"] == "user"
        if len(messages) == 2:  # a fresh chat: each episode's first step, opening with the goal
            assert messages[1]["content"].startswith("Goal: ")
            starts += 1
            continue
        _, before, _ = calls[k - 1]
        t = steps[k - 1]
        taken = int(trace.actions[t] - offsets[trace.states[t]])
        reply = str(policy.offered[k - 1].index(taken) + 1)  # the option taken, by its number among those offered
        assert messages[: len(before)] == before  # the previous step's prompt is this one's prefix
        assert messages[len(before)] == {"role": "assistant", "content": reply}  # then the model's own reply
        assert len(messages) == len(before) + 2  # and one new user turn
    assert starts == LENGTH.episodes


def test_a_step_appends_a_fraction_of_what_the_one_turn_layout_re_sends(world, chat_run):
    """What a KV-prefix model evaluates: the chat's new turn against the one-turn prompt past its prefix shared with
    the previous step's (characters, the same text both ways)."""
    backend, policy, _ = chat_run
    appended, resent, previous = [], [], ""
    for (_, messages, _), (obs, _, _), prompt in zip(backend.requests, policy.seen, policy.one_turn_prompts):
        appended.append(len(messages[-1]["content"]) + (len(messages[-2]["content"]) if len(messages) > 2 else 0))
        text = choose_messages(prompt, list(obs.actions))[0]["content"]
        shared = next((i for i, (a, b) in enumerate(zip(previous, text)) if a != b), min(len(previous), len(text)))
        resent.append(len(text) - shared)
        previous = text
    assert np.mean(appended) < 0.5 * np.mean(resent)


def test_the_model_sees_its_retrieved_memory_and_nothing_else(world, chat_run):
    backend, policy, trace = chat_run
    start = 0
    for (_, messages, _), (obs, lines, goal), offered in zip(backend.requests, policy.seen, policy.offered):
        t = obs.t  # the step
        if len(messages) == 2:
            start = t
        shown = _user_text(messages)
        made = {
            format_transition(
                world.state_texts[trace.states[j]],
                world.action_names[trace.actions[j]],
                world.state_texts[world.targets[trace.actions[j]]],
            )
            for j in range(start, t)
        }
        # every line the proxy's memory holds now is in the chat, or is a move this chat made (its turn, the
        # reply and the next turn's "You are at" say it)
        assert all(line in shown or line in made for line in lines)
        new = [x for x in messages[-1]["content"].split("\n") if x.startswith("From: ")]
        assert set(new) <= set(lines)  # a new turn's memory lines are this step's retrieved memory
        assert f"You are at: {world.state_texts[obs.state]}" in messages[-1]["content"]
        options = [obs.actions[a] for a in offered]
        assert messages[-1]["content"].endswith("\n".join(f"{i + 1}. {a}" for i, a in enumerate(options)))
        assert world.state_texts[goal] in shown


def test_the_chat_starts_afresh_before_it_outgrows_its_bound(world, tmp_path):
    backend = Recorder("instruct")
    policy, trace = play(world, make_client(tmp_path, backend), max_chat_tokens=1200)
    sizes = [count_message_tokens(m) for _, m, _ in backend.requests]
    assert max(sizes) <= 1200 - LLMPolicy.REPLY_TOKENS
    fresh = [t for t, (_, m, _) in enumerate(backend.requests) if len(m) == 2]
    assert len(fresh) > LENGTH.episodes  # restarts inside episodes too
    for t in fresh:  # a fresh chat: the instruction, the goal and all the memory retrieved at this step
        obs, lines, goal = policy.seen[t]
        turn = backend.requests[t][1][1]["content"]
        assert turn.startswith(f"Goal: {world.state_texts[goal]}") and all(line in turn for line in lines)


def test_a_killed_rollout_replays_from_the_cache_with_no_model_call(world, tmp_path, chat_run):
    whole, _, trace = chat_run
    with pytest.raises(Killed):
        play(world, make_client(tmp_path, Recorder("instruct", die_at=25)))
    again = Recorder("instruct")
    client = make_client(tmp_path, again)
    _, resumed = play(world, client)
    assert client.hits == 25 and len(again.requests) == len(whole.requests) - 25
    assert [m for _, m, _ in again.requests] == [m for _, m, _ in whole.requests[25:]]
    assert np.array_equal(resumed.states, trace.states) and np.array_equal(resumed.actions, trace.actions)
    # a replay of the recording answers every step from the cache and sends nothing
    replay = make_client(tmp_path, "replay", recorded="instruct")
    _, replayed = play(world, replay)
    assert replay.hits == len(whole.requests) and np.array_equal(replayed.states, trace.states)


def test_a_constrained_model_is_sent_the_option_numbers_as_its_only_answers(world, chat_run):
    backend, policy, trace = chat_run
    for _, messages, params in backend.requests:
        n = len(_OPTION.findall(messages[-1]["content"]))
        assert params["answer_choices"] == [str(i) for i in range(1, n + 1)] and params["max_tokens"] == 4
    assert policy.calls == len(backend.requests) == asked(policy) > 50 and policy.malformed == 0


def test_a_served_model_gets_the_same_messages_and_a_free_reply_is_read_or_counted(world, tmp_path, chat_run):
    constrained, _, _ = chat_run
    served = Recorder("openai", chatty=True)
    policy, served_trace = play(world, make_client(tmp_path, served))
    assert "answer_choices" not in served.requests[0][2]
    # the same layout: the first step's messages are the embedded model's, word for word
    assert served.requests[0][1] == constrained.requests[0][1]
    asked_ = [m for _, m, _ in served.requests if not m[-1]["content"].startswith("That was not")]
    assert len(asked_) == policy.calls == asked(policy)
    # each re-ask follows a reply that named no option: counted as malformed, and the history keeps the number
    assert policy.malformed == len(served.requests) - len(asked_) > 0
    assert all(m[-2]["content"].isdigit() for m in asked_ if len(m) > 2)


def test_a_scoring_model_that_cannot_chat_gets_the_one_turn_prompt(world, tmp_path):
    backend = Recorder("local")
    policy, trace = play(world, make_client(tmp_path, backend))
    assert {kind for kind, _, _ in backend.requests} == {"choose"} and len(backend.requests) == asked(policy)
    assert backend.requests[0][1][0]["content"].startswith(LLMPolicy.INSTRUCTION + "\nGoal: ")
