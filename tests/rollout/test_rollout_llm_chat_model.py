"""With the embedded model: a policy step evaluates only the chat's new turn (the KV of the episode's chat so far is
kept), and fewer tokens than the one-turn prompt of the same observation re-evaluates past its shared prefix."""

import pytest

from llm_testkit import MODEL_THREADS
from tailmem.graphworld.build import world_from_config
from tailmem.llm.backends.instruct import available, choose_messages
from tailmem.llm.group import shipped_tree
from tailmem.roles import POLICY
from tailmem.rollout.run import rollout
from tailmem.rollout.semantic import LLMPolicy
from tailmem.settings.rollout import RetrievalGroup, RolloutGroup

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not available(), reason="the `local` extra (llama-cpp-python) is not installed"),
]
WARM_UP, ASKED = 30, 4  # random-walk steps that fill the memory, then steps the model chooses


class Measured(LLMPolicy):
    """A random walk for the first WARM_UP steps (no model call), then the model; per asked step: the messages,
    the tokens the backend evaluated and the one-turn prompt of the same observation."""

    def __init__(self, *a):
        super().__init__(*a)
        self.steps = []

    def choose(self, obs, u):
        if obs.t < WARM_UP:
            self.goal(obs.episode)
            return min(int(u * len(obs.actions)), len(obs.actions) - 1)
        backend = self.client._impl
        before, one_turn, calls = backend.evaluated, choose_messages(self.prompt(obs), list(obs.actions)), self.calls
        chosen = super().choose(obs, u)
        if self.calls > calls:  # asked: the chat now ends with this step's turn and the reply
            self.steps.append((self._chat[:-1], backend.evaluated - before, one_turn))
        return chosen


def test_a_step_evaluates_its_new_turn_and_less_than_the_one_turn_prompt(tmp_path):
    from tailmem.llm import get_client

    role = {
        "backend": "instruct",
        "model": "qwen2.5-coder-1.5b-instruct-q4_k_m",
        "n_ctx": 4096,
        "n_threads": MODEL_THREADS,
    }
    cfg = {"llm": shipped_tree(cache_path=str(tmp_path / "c.sqlite"), prices={}, roles={POLICY: role})}
    client = get_client(cfg, POLICY, "test")
    backend = client._impl
    world = world_from_config(dict(family="modular", n=60, communities=3, k_in=4.0, k_out=0.5), seed=0)
    policy = Measured(world, 0, client)
    length = RolloutGroup(episodes=1, steps=WARM_UP + ASKED, start="uniform")
    rollout(world, length, RetrievalGroup(name="recency", k=5), 0, policy=policy)
    assert len(policy.steps) == policy.calls >= 2 and policy.malformed == 0  # exploring steps ask nothing
    tokens = backend.llm.tokenize

    def ids(messages):
        return tokens(backend.render(messages, None).encode(), add_bos=False, special=True)

    chat, one_turn, previous = [], [], None
    for k, (messages, evaluated, single) in enumerate(policy.steps):
        if k:  # the new turn: this prompt past the previous one and the reply it kept
            kept = policy.steps[k - 1][0] + [messages[len(policy.steps[k - 1][0])]]
            before = backend.render(kept, None)
            head = before[: before.rindex("<|im_start|>assistant")]  # without the next generation prompt
            text = backend.render(messages, None)
            assert messages[: len(kept)] == kept and text.startswith(head)
            new = len(tokens(text[len(head) :].encode(), add_bos=False, special=True))
            assert evaluated <= new + 4  # the chat's KV was kept: only the new turn (and the reply's end) evaluated
            chat.append(evaluated)
        single_ids = ids(single)  # the one-turn layout's prompt and what a KV-prefix model re-evaluates of it
        if previous is not None:
            shared = next((i for i, (a, b) in enumerate(zip(previous, single_ids)) if a != b), len(previous))
            one_turn.append(len(single_ids) - min(shared, len(single_ids) - 1))
        previous = single_ids
    bound = 0.6 * sum(one_turn) / len(one_turn)
    assert sum(chat) / len(chat) < bound < sum(one_turn) / len(one_turn), (chat, one_turn)
